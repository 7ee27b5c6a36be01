import Foundation
import LocationFormats
import ProcessTestSupport
import Testing

/// `GzipDecoder` against the `gzip` tool: what it compresses (every level, stored blocks for
/// data that does not compress, several members) decompresses to the same bytes in chunks; a
/// damaged or cut stream throws, never traps.
@Suite struct GzipDecoderTests {
    static let gzipPath = "/bin/gzip"

    /// `bytes` compressed by `gzip -<level>`.
    static func gzip(_ bytes: [UInt8], level: Int = 6) throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "fod-gzip-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path + ".gz") }
        let (status, output) = try runToCompletion(gzipPath, ["-\(level)", "-f", path], limitSeconds: 120)
        guard status == 0 else { throw GzipTestFailure(output) }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".gz")))
    }

    static func decompress(_ bytes: [UInt8], chunkBytes: Int = 1 << 20) throws -> (output: [UInt8], largestChunk: Int) {
        var output: [UInt8] = []
        var largest = 0
        try bytes.withUnsafeBufferPointer { input in
            try GzipDecoder.decompress(input, chunkBytes: chunkBytes) { chunk in
                largest = max(largest, chunk.count)
                output += chunk
            }
        }
        return (output, largest)
    }

    /// A Recorder month file's worth of lines: repetitive text, as real archives hold.
    static let recorderText: [UInt8] = Array((0..<20_000).map { i in
        "2024-05-\(10 + i % 20)T08:\(10 + i % 50):01Z\t*                 \t{\"_type\":\"location\",\"lat\":48.\(1000 + i),\"lon\":11.\(5000 + i * 7 % 1000),\"tst\":\(1_715_000_000 + i * 60),\"acc\":\(i % 40)}\n"
    }.joined().utf8)

    /// Bytes that do not compress (gzip stores them).
    static let noise: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<300_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }()

    @Test(arguments: [1, 6, 9])
    func decompressesWhatGzipCompresses(level: Int) throws {
        for input in [Self.recorderText, Self.noise, [], Array("a".utf8)] {
            let compressed = try Self.gzip(input, level: level)
            let (output, largest) = try Self.decompress(compressed, chunkBytes: 64 * 1024)
            #expect(output == input, "level \(level), \(input.count) bytes")
            #expect(largest <= 64 * 1024 + 258, "chunks stay near chunkBytes")
        }
    }

    @Test func severalMembersAreOneStream() throws {
        let a = try Self.gzip(Array("first\n".utf8)), b = try Self.gzip(Array("second\n".utf8))
        #expect(try Self.decompress(a + b).output == Array("first\nsecond\n".utf8))
    }

    @Test func damagedAndCutStreamsThrow() throws {
        let compressed = try Self.gzip(Self.recorderText)
        #expect(throws: GzipDecoder.GzipError.self) { try Self.decompress(Array(compressed.dropLast(9))) }
        #expect(throws: GzipDecoder.GzipError.self) { try Self.decompress(Array("not gzip at all".utf8)) }
        var flipped = compressed
        flipped[compressed.count / 2] ^= 0x55
        #expect(throws: GzipDecoder.GzipError.self) { try Self.decompress(flipped) }
        var wrongCRC = compressed
        wrongCRC[compressed.count - 6] ^= 1
        #expect(throws: GzipDecoder.GzipError.self) { try Self.decompress(wrongCRC) }
    }

    @Test func everyPrefixAndEveryByteFlipOfASmallStreamFailsCleanly() throws {
        let compressed = try Self.gzip(Array(Self.recorderText.prefix(3_000)))
        for end in 0..<compressed.count {
            #expect(throws: GzipDecoder.GzipError.self) { try Self.decompress(Array(compressed.prefix(end))) }
        }
        for position in 10..<compressed.count {
            var damaged = compressed
            damaged[position] ^= 0xA5
            // Either an error or (rarely) other bytes that still pass the CRC: never a trap.
            _ = try? Self.decompress(damaged)
        }
    }
}

struct GzipTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
