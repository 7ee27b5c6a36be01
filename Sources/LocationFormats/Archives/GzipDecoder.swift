/// Decompresses gzip (RFC 1952) holding DEFLATE data (RFC 1951), written here because the
/// import reads `.tar.gz` archives of OwnTracks Recorder files and no allowed library offers it
/// (Foundation on Linux has no compression API; zlib is not a dependency of this package).
///
/// The input is held whole (a memory-mapped file); the output goes to `write` in chunks of about
/// `chunkBytes`, keeping only the last 32 KiB (DEFLATE's window) besides, so a large archive
/// never sits in memory decompressed. Several gzip members one after another (what `cat a.gz
/// b.gz` makes) decompress as one stream. Every member's CRC-32 and length are checked.
///
/// Never traps on input: a truncated or damaged stream, an invalid code or a distance reaching
/// before the output's start throws `GzipError` with the input offset.
public struct GzipDecoder {
    /// Why decompression failed, and the byte of the input where.
    public struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public let offset: Int
        public var description: String { "gzip: \(message) (at byte \(offset))" }
    }

    /// Whether `bytes` start like gzip (magic `1f 8b`, method 8).
    public static func isGzip(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x1F, 0x8B, 0x08])
    }

    /// Decompresses `input` into `write`, in chunks of `chunkBytes` to `chunkBytes` + 257 bytes
    /// (the last may be shorter).
    public static func decompress(_ input: UnsafeBufferPointer<UInt8>, chunkBytes: Int = 1 << 20,
                                  write: ([UInt8]) throws -> Void) throws {
        var decoder = GzipDecoder(input: input, chunkBytes: max(1, chunkBytes))
        var members = 0
        repeat {
            try decoder.member(write: write)
            members += 1
            // Trailing zeros (padding some tools write) end the stream as well as its end.
        } while decoder.reader.position < input.count && isGzip(input[decoder.reader.position...])
        try decoder.flush(all: true, write: write)
        if members == 0 { throw GzipError(message: "no gzip data", offset: 0) }
    }

    var reader: BitReader
    let chunkBytes: Int
    /// Output not yet handed out, plus the 32 KiB window before it.
    var output: [UInt8] = []
    /// Bytes of `output` already handed out (the window).
    var flushed = 0
    var crc = CRC32()
    var memberLength: UInt32 = 0

    init(input: UnsafeBufferPointer<UInt8>, chunkBytes: Int) {
        reader = BitReader(input)
        self.chunkBytes = chunkBytes
    }

    static let window = 32 * 1024

    /// One gzip member: header, DEFLATE blocks, trailer.
    mutating func member(write: ([UInt8]) throws -> Void) throws {
        try header()
        crc = CRC32()
        memberLength = 0
        var final = false
        while !final {
            final = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try storedBlock(write: write)
            case 1: try huffmanBlock(HuffmanCodes.fixedLiterals, HuffmanCodes.fixedDistances, write: write)
            case 2:
                let (literals, distances) = try HuffmanCodes.dynamic(&reader)
                try huffmanBlock(literals, distances, write: write)
            default: throw reader.error("invalid block type 3")
            }
            try flush(all: false, write: write)
        }
        reader.alignToByte()
        let storedCRC = try reader.littleEndian32()
        let storedLength = try reader.littleEndian32()
        guard storedCRC == crc.value else { throw reader.error("CRC-32 mismatch: the data is damaged") }
        guard storedLength == memberLength else { throw reader.error("length mismatch: the data is damaged") }
    }

    /// The member header: magic, method 8, flags and their optional fields.
    mutating func header() throws {
        guard try reader.byte() == 0x1F, try reader.byte() == 0x8B, try reader.byte() == 8 else {
            throw reader.error("not gzip data (or not DEFLATE-compressed)")
        }
        let flags = try reader.byte()
        guard flags & 0xE0 == 0 else { throw reader.error("reserved header flags set") }
        try reader.skip(6)  // modification time, extra flags, operating system
        if flags & 0x04 != 0 { try reader.skip(Int(try reader.littleEndian16())) }  // FEXTRA
        if flags & 0x08 != 0 { while try reader.byte() != 0 {} }  // FNAME
        if flags & 0x10 != 0 { while try reader.byte() != 0 {} }  // FCOMMENT
        if flags & 0x02 != 0 { try reader.skip(2) }  // FHCRC
    }

    mutating func storedBlock(write: ([UInt8]) throws -> Void) throws {
        reader.alignToByte()
        let length = try reader.littleEndian16(), complement = try reader.littleEndian16()
        guard length == ~complement else { throw reader.error("stored block length check failed") }
        for _ in 0..<length {
            if output.count - flushed >= chunkBytes { try flush(all: false, write: write) }
            emit(try reader.byte())
        }
    }

    /// A compressed block; the output is handed out as it grows (one block may expand to any size).
    mutating func huffmanBlock(_ literals: HuffmanCodes, _ distances: HuffmanCodes, write: ([UInt8]) throws -> Void) throws {
        while true {
            if output.count - flushed >= chunkBytes { try flush(all: false, write: write) }
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                emit(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let k = symbol - 257
            guard k < HuffmanCodes.lengthBase.count else { throw reader.error("invalid length code \(symbol)") }
            let length = HuffmanCodes.lengthBase[k] + Int(try reader.bits(HuffmanCodes.lengthExtra[k]))
            let d = try distances.decode(&reader)
            guard d < HuffmanCodes.distanceBase.count else { throw reader.error("invalid distance code \(d)") }
            let distance = HuffmanCodes.distanceBase[d] + Int(try reader.bits(HuffmanCodes.distanceExtra[d]))
            guard distance <= output.count else { throw reader.error("distance \(distance) reaches before the start of the data") }
            var from = output.count - distance
            for _ in 0..<length {
                emit(output[from])
                from += 1
            }
        }
    }

    @inline(__always)
    mutating func emit(_ byte: UInt8) {
        output.append(byte)
        crc.add(byte)
        memberLength &+= 1
    }

    /// Hands out what is past the window (everything, at the end) once a chunk's worth is there.
    mutating func flush(all: Bool, write: ([UInt8]) throws -> Void) throws {
        let pending = output.count - flushed
        guard pending >= chunkBytes || (all && pending > 0) else { return }
        try write(Array(output[flushed...]))
        let keep = min(Self.window, output.count)
        output.removeFirst(output.count - keep)
        flushed = output.count
    }
}

/// Reads DEFLATE's bit stream: bits least significant first, refilled a byte at a time.
struct BitReader {
    let input: UnsafeBufferPointer<UInt8>
    /// The next byte to load into `buffer`.
    var position = 0
    var buffer: UInt64 = 0
    var count = 0

    init(_ input: UnsafeBufferPointer<UInt8>) { self.input = input }

    func error(_ message: String) -> GzipDecoder.GzipError { GzipDecoder.GzipError(message: message, offset: position) }

    /// `n` (0…32) bits as a number; throws when the input ends first.
    @inline(__always)
    mutating func bits(_ n: Int) throws -> UInt32 {
        while count < n {
            guard position < input.count else { throw error("the data is cut short") }
            buffer |= UInt64(input[position]) << UInt64(count)
            position += 1
            count += 8
        }
        let value = UInt32(truncatingIfNeeded: buffer & ((1 << UInt64(n)) - 1))
        buffer >>= UInt64(n)
        count -= n
        return value
    }

    /// Up to `n` bits without consuming them (zeros past the end of the input), and how many
    /// real bits there are.
    @inline(__always)
    mutating func peek(_ n: Int) -> (value: UInt32, available: Int) {
        while count < n && position < input.count {
            buffer |= UInt64(input[position]) << UInt64(count)
            position += 1
            count += 8
        }
        return (UInt32(truncatingIfNeeded: buffer & ((1 << UInt64(n)) - 1)), count)
    }

    @inline(__always)
    mutating func consume(_ n: Int) {
        buffer >>= UInt64(n)
        count -= n
    }

    /// Drops the bits left of the current byte; the next read starts at a byte.
    mutating func alignToByte() {
        let drop = count % 8
        consume(drop)
        // Whole bytes still buffered are given back to the byte reads.
        position -= count / 8
        buffer = 0
        count = 0
    }

    mutating func byte() throws -> UInt8 { UInt8(try bits(8)) }
    mutating func littleEndian16() throws -> UInt16 { UInt16(try bits(16)) }
    mutating func littleEndian32() throws -> UInt32 { try bits(32) }

    mutating func skip(_ bytes: Int) throws {
        for _ in 0..<bytes { _ = try byte() }
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as gzip's trailer holds it.
struct CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
    private var state: UInt32 = 0xFFFF_FFFF

    @inline(__always)
    mutating func add(_ byte: UInt8) {
        state = Self.table[Int((state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8)
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }
}
