import Foundation
import Testing

/// Issue #48: docs/ARCHITECTURE.md's module table is the one list of the product's modules.
/// These tests read `Package.swift` and the table and check that they name the same modules
/// with the same dependencies.
@Suite struct ModuleMapTests {
    static var packageRoot: URL { PortsPlacementTests.packageRoot }

    /// The targets `Package.swift` declares with their sources under `Sources/` (no `path:`),
    /// each with its dependencies.
    static func packageTargets() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = try Regex(#"\.(systemLibrary|target|executableTarget)\(name:\s*"([^"]+)"(.*?)\),?\s*$"#).anchorsMatchLineEndings()
        let dependencyList = try Regex(#"dependencies:\s*\[([^\]]*)\]"#)
        var targets: [String: Set<String>] = [:]
        // A declaration may continue on the next line (a long `path:`): join each with what follows it until the closing paren.
        let text = manifest.replacingOccurrences(of: ",\n                          path:", with: ", path:")
        for match in text.matches(of: declaration) {
            guard let name = match.output[2].substring, let rest = match.output[3].substring else { continue }
            if rest.contains("path:") { continue }
            var dependencies: Set<String> = []
            if let list = try dependencyList.firstMatch(in: rest), let names = list.output[1].substring {
                for item in names.split(separator: ",") {
                    let trimmed = item.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    if !trimmed.isEmpty { dependencies.insert(trimmed) }
                }
            }
            targets[String(name)] = dependencies
        }
        return targets
    }

    /// The rows of ARCHITECTURE.md's "Modules" table: module → its "depends on" column.
    static func documentedModules() throws -> [String: Set<String>] {
        let document = try String(contentsOf: packageRoot.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        guard let header = document.range(of: "| module | job | depends on |") else { return [:] }
        var modules: [String: Set<String>] = [:]
        for line in document[header.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
            let name = String(cells[1].dropFirst().dropLast())
            let column = cells[cells.count - 2]
            modules[name] = column == "—" ? [] : Set(column.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return modules
    }

    @Test func theSourcesAreFound() throws {
        let targets = try Self.packageTargets()
        #expect(targets["Tracking"]?.contains("GeoKit") == true)
        #expect(targets["CSQLite"] == [])
        #expect(targets["fod-geo-bench"] == nil, "benchmarks (path: Benchmarks/…) are not modules of the product")
        #expect(try Self.documentedModules()["API"]?.contains("Tracking") == true)
    }

    @Test func everyModuleIsDocumentedWithItsDependencies() throws {
        let documented = try Self.documentedModules()
        for (name, dependencies) in try Self.packageTargets() {
            guard let listed = documented[name] else {
                Issue.record("\(name) is a target in Package.swift but has no row in docs/ARCHITECTURE.md's module table")
                continue
            }
            #expect(listed == dependencies, "\(name): ARCHITECTURE.md says \(listed.sorted()), Package.swift \(dependencies.sorted())")
        }
    }

    @Test func everyDocumentedModuleExists() throws {
        let targets = try Self.packageTargets()
        for name in try Self.documentedModules().keys {
            #expect(targets[name] != nil, "docs/ARCHITECTURE.md lists \(name), which Package.swift does not declare under Sources/")
        }
    }
}
