import Foundation
import LocationFormats

/// A `.gz` file inflated (`GzipDecoder`) into a temporary file, deleted when this is released:
/// `fod import` reads a `.tar.gz` of Recorder files as the tar archive inside it.
final class GzipFile {
    /// The decompressed file and its first 512 bytes (to tell a tar archive).
    let path: String
    let head: [UInt8]

    private init(path: String, head: [UInt8]) {
        self.path = path
        self.head = head
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    static func isGzip(_ bytes: [UInt8]) -> Bool { GzipDecoder.isGzip(bytes) }

    /// Inflates `source` into a new file in the temporary directory (`$TMPDIR`).
    static func inflateToTemporaryFile(_ source: String) throws -> GzipFile {
        let input = try Data(contentsOf: URL(fileURLWithPath: source), options: .alwaysMapped)
        let path = NSTemporaryDirectory() + "fod-import-\(UUID().uuidString).tar"
        guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
            throw ImportSourceError("cannot write a temporary file in \(NSTemporaryDirectory())")
        }
        var head: [UInt8] = []
        do {
            defer { try? output.close() }
            try input.withUnsafeBytes { raw in
                try GzipDecoder.decompress(raw.bindMemory(to: UInt8.self)) { chunk in
                    if head.count < 512 { head += chunk.prefix(512 - head.count) }
                    try output.write(contentsOf: chunk)
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw ImportSourceError("cannot decompress \(source): \(error)")
        }
        return GzipFile(path: path, head: head)
    }
}
