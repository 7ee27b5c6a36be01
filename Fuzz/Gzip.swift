// fuzz-modules: LocationFormats
// fuzz-support: FuzzCheck
// fuzz-max-len: 16384
//
// The gzip decoder `fod import` reads `.tar.gz` archives with (Sources/LocationFormats/Archives:
// GzipDecoder, HuffmanCodes). The first byte picks how the input is used: with its top bit set
// the rest is wrapped as stored DEFLATE blocks in a gzip member (with its CRC-32 and length), so
// the decoder must give it back exactly; otherwise the rest is taken as a gzip stream as it is.
// Invariants:
// - never a trap, however the stream is damaged: it decodes or throws an error with an offset
//   inside the input;
// - the output does not depend on the chunk size it is handed out in (1 byte to 1 MiB; on an
//   error, the same error, after more of the output with smaller chunks), and no chunk is
//   longer than the chunk size plus one match (258 bytes);
// - what gzip's stored blocks wrap comes back byte for byte.
import LocationFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, rest) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let stream = selector & 0x80 != 0 ? storedMember(rest, blockSize: Int(selector & 0x7F) + 1) : rest
    let chunkBytes = [1, 7, 4096, 1 << 20][Int(selector & 3)]
    let whole = decode(stream, chunkBytes: 1 << 20)
    let chunked = decode(stream, chunkBytes: chunkBytes)
    // On a failure each run has handed out what it flushed before: smaller chunks, more of it.
    require(whole.failed == chunked.failed && whole.errorOffset == chunked.errorOffset
            && (whole.failed ? chunked.output.starts(with: whole.output) : whole.output == chunked.output),
            "chunks of \(chunkBytes) bytes give another result: \(shown(rest))")
    require(chunked.largestChunk <= chunkBytes + 258, "a chunk of \(chunked.largestChunk) bytes for \(chunkBytes)")
    if let offset = whole.errorOffset { require(offset >= 0 && offset <= stream.count, "error at \(offset) of \(stream.count)") }
    if selector & 0x80 != 0 {
        require(!whole.failed && whole.output == rest, "stored blocks of \(rest.count) bytes did not come back: \(shown(rest))")
    }
    return 0
}

func decode(_ stream: [UInt8], chunkBytes: Int) -> (output: [UInt8], failed: Bool, errorOffset: Int?, largestChunk: Int) {
    var output: [UInt8] = []
    var largest = 0
    do {
        try stream.withUnsafeBufferPointer { input in
            try GzipDecoder.decompress(input, chunkBytes: chunkBytes) { chunk in
                largest = max(largest, chunk.count)
                output += chunk
            }
        }
        return (output, false, nil, largest)
    } catch let error as GzipDecoder.GzipError {
        return (output, true, error.offset, largest)
    } catch {
        return (output, true, nil, largest)
    }
}

/// `bytes` as one gzip member of stored blocks of `blockSize` bytes.
func storedMember(_ bytes: [UInt8], blockSize: Int) -> [UInt8] {
    var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
    var start = 0
    repeat {
        let end = min(bytes.count, start + blockSize)
        out.append(end == bytes.count ? 1 : 0)  // BFINAL, BTYPE 00, then aligned
        let length = UInt16(end - start)
        out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
        out += bytes[start..<end]
        start = end
    } while start < bytes.count
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    let length = UInt32(truncatingIfNeeded: bytes.count)
    out += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) }
    out += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: length >> UInt32($0)) }
    return out
}
