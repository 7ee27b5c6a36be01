import Foundation
import Testing

/// Issue #48: no Swift file over `maxLines` lines without its reason at the top (a comment line
/// starting `// Why one file` in its first lines). These tests read the sources.
@Suite struct FileLengthTests {
    static let maxLines = 450

    /// Swift files under `Sources/`, `Tests/` and `Benchmarks/` longer than `maxLines`, with their first lines.
    static func longFiles() throws -> [(path: String, head: [Substring])] {
        let root = PortsPlacementTests.packageRoot
        var found: [(path: String, head: [Substring])] = []
        for folder in ["Sources", "Tests", "Benchmarks"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL } ?? []
            for file in files where file.pathExtension == "swift" {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                if lines.count > maxLines {
                    found.append((String(file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)), Array(lines.prefix(12))))
                }
            }
        }
        return found
    }

    @Test func theSourcesAreRead() throws {
        #expect(try Self.longFiles().contains { $0.path == "Sources/JSONCore/JSONParserCore.swift" })
    }

    @Test func everyLongFileSaysWhyAtTheTop() throws {
        for file in try Self.longFiles() {
            #expect(file.head.contains { $0.hasPrefix("// Why one file") },
                    "\(file.path) is over \(Self.maxLines) lines: split it, or say at its top why it is one file (a line starting \"// Why one file\")")
        }
    }
}
