/// A canonical Huffman code of DEFLATE (RFC 1951 §3.2.2) as a lookup table: the next
/// `maxLength` bits of the stream (least significant first) index an entry holding the symbol
/// and its code length. Built from the code lengths of the symbols; an over-subscribed set of
/// lengths is refused, and a bit pattern no code matches (an incomplete code) throws on decoding.
struct HuffmanCodes {
    /// `symbol << 4 | length`, 0 where no code matches.
    let table: [UInt32]
    /// The longest code (1…15), the bits a lookup reads.
    let maxLength: Int

    /// The code for `lengths[symbol]` (0: the symbol is unused); nil when the lengths are
    /// over-subscribed or none is used.
    init?(lengths: [Int]) {
        var counts = [Int](repeating: 0, count: 16)
        for length in lengths {
            guard (0...15).contains(length) else { return nil }
            counts[length] += 1
        }
        counts[0] = 0
        guard let longest = counts.lastIndex(where: { $0 > 0 }), longest > 0 else { return nil }
        // Kraft: more codes of a length than there is room for is no prefix code.
        var room = 1
        for length in 1...15 {
            room = room * 2 - counts[length]
            if room < 0 { return nil }
        }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + counts[length - 1]) << 1
            next[length] = code
        }
        var table = [UInt32](repeating: 0, count: 1 << longest)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            let code = next[length]
            next[length] += 1
            // The stream sends a code's first bit first: the table is indexed by it reversed.
            var reversed = 0
            for bit in 0..<length where code >> (length - 1 - bit) & 1 != 0 { reversed |= 1 << bit }
            let entry = UInt32(symbol) << 4 | UInt32(length)
            var index = reversed
            while index < table.count {
                table[index] = entry
                index += 1 << length
            }
        }
        self.table = table
        maxLength = longest
    }

    /// The next symbol of the stream.
    @inline(__always)
    func decode(_ reader: inout BitReader) throws -> Int {
        let (bits, available) = reader.peek(maxLength)
        let entry = table[Int(bits)]
        let length = Int(entry & 15)
        guard length > 0 else { throw reader.error("invalid Huffman code") }
        guard length <= available else { throw reader.error("the data is cut short") }
        reader.consume(length)
        return Int(entry >> 4)
    }

    // MARK: DEFLATE's tables

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
                               4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Block type 1's codes.
    static let fixedLiterals: HuffmanCodes = {
        let lengths = (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 }
        guard let codes = HuffmanCodes(lengths: lengths) else { preconditionFailure("DEFLATE's fixed literal code is complete") }
        return codes
    }()
    static let fixedDistances: HuffmanCodes = {
        guard let codes = HuffmanCodes(lengths: [Int](repeating: 5, count: 30)) else { preconditionFailure("DEFLATE's fixed distance code is valid") }
        return codes
    }()

    /// The order in which a dynamic block sends the code lengths of its code-length code.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// A dynamic block's literal/length and distance codes, read from its header.
    static func dynamic(_ reader: inout BitReader) throws -> (HuffmanCodes, HuffmanCodes) {
        let literalCount = Int(try reader.bits(5)) + 257
        let distanceCount = Int(try reader.bits(5)) + 1
        let lengthCodeCount = Int(try reader.bits(4)) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw reader.error("too many codes in a dynamic block") }
        var lengthCodeLengths = [Int](repeating: 0, count: 19)
        for k in 0..<lengthCodeCount { lengthCodeLengths[codeLengthOrder[k]] = Int(try reader.bits(3)) }
        guard let lengthCode = HuffmanCodes(lengths: lengthCodeLengths) else { throw reader.error("invalid code-length code") }
        var lengths: [Int] = []
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try lengthCode.decode(&reader)
            switch symbol {
            case 0...15:
                lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw reader.error("a repeat with nothing to repeat") }
                lengths += repeatElement(previous, count: 3 + Int(try reader.bits(2)))
            case 17:
                lengths += repeatElement(0, count: 3 + Int(try reader.bits(3)))
            default:
                lengths += repeatElement(0, count: 11 + Int(try reader.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw reader.error("code lengths overrun their count") }
        guard lengths[256] > 0 else { throw reader.error("no end-of-block code") }
        guard let literals = HuffmanCodes(lengths: Array(lengths[..<literalCount])) else { throw reader.error("invalid literal/length code") }
        // A block of literals only may have no distance code at all (one unused length is allowed).
        let distances = HuffmanCodes(lengths: Array(lengths[literalCount...])) ?? HuffmanCodes.unusable
        return (literals, distances)
    }

    /// A code that matches nothing (every decode throws): a block without distance codes.
    static let unusable = HuffmanCodes(table: [0], maxLength: 0)

    private init(table: [UInt32], maxLength: Int) {
        self.table = table
        self.maxLength = maxLength
    }
}
