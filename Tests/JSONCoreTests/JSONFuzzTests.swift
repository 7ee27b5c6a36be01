import JSONCore
import Testing

/// Seeded fuzzing: the parser must never trap, and whatever it accepts must be valid UTF-8
/// and survive a serialize → parse round trip unchanged.
@Suite("Fuzz")
struct JSONFuzzTests {
    static let seeds: [String] = [
        #"{"locations":[{"location":[-74.07157,40.64409],"timestamp":"2020-06-30T00:00:00Z","id":"abc"}]}"#,
        #"[1,-0,0.5,1e10,-2.5E-3,123456789012345678901,true,false,null,"",[],{}]"#,
        #"{"a":{"b":{"c":[[[{"d":"\u00e9\ud83d\ude00\n\t\"\\\/"}]]]}},"e":"é😀"}"#,
        #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}"#,
        " [ \"x\" , { \"y\" : [ 9007199254740993 , -9223372036854775808 ] } ] ",
        "\"\u{7F}\\u0000\\u001F\\u2028 ok\"",
    ]

    /// Bytes that are likely to matter to the grammar, plus some invalid UTF-8.
    static let alphabet: [UInt8] = Array("{}[],:\"\\/ \n\t0123456789-+.eEtrufalsnbu".utf8)
        + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xA9, 0xE2, 0x80, 0xA8, 0xED, 0xA0, 0xF0, 0x9F, 0xF4, 0x90, 0xFF]

    /// Checks the parser's contract on arbitrary input.
    static func check(_ input: [UInt8]) -> Bool {
        do {
            let value = try JSONParser.parse(input)
            guard String(validating: input, as: UTF8.self) != nil else { return false }
            let output = value.serialized()
            let reparsed = try JSONParser.parse(output)
            return reparsed == value && reparsed.serialized() == output
        } catch {
            return error.offset >= 0 && error.offset <= input.count && error.line >= 1 && error.column >= 1
                && !error.reason.isEmpty && !error.description.isEmpty
        }
    }

    @Test func randomMutationsOfValidDocuments() {
        var generator = JSONTestRNG(seed: 0x5EED_0001)
        var failures: [[UInt8]] = []
        var accepted = 0
        for iteration in 0..<20_000 {
            var document = Array(JSONFuzzTests.seeds[iteration % JSONFuzzTests.seeds.count].utf8)
            let mutations = Int.random(in: 1...4, using: &generator)
            for _ in 0..<mutations {
                mutate(&document, using: &generator)
            }
            if !JSONFuzzTests.check(document) {
                failures.append(document)
            }
            if (try? JSONParser.parse(document)) != nil {
                accepted += 1
            }
        }
        #expect(failures.isEmpty, "first failure: \(failures.first.map { String(decoding: $0, as: UTF8.self) } ?? "")")
        // Sanity: the mutations do not make everything invalid.
        #expect(accepted > 200)
    }

    @Test func randomBytes() {
        var generator = JSONTestRNG(seed: 0x5EED_0002)
        var failures = 0
        for _ in 0..<10_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let useAlphabet = Bool.random(using: &generator)
            let input = (0..<length).map { _ in
                useAlphabet
                    ? JSONFuzzTests.alphabet.randomElement(using: &generator)!
                    : UInt8.random(in: 0...255, using: &generator)
            }
            if !JSONFuzzTests.check(input) {
                failures += 1
            }
        }
        #expect(failures == 0)
    }

    @Test func randomValuesRoundTrip() throws {
        var generator = JSONTestRNG(seed: 0x5EED_0003)
        for _ in 0..<1_000 {
            let value = randomValue(depth: 0, using: &generator)
            let bytes = value.serialized()
            let reparsed = try JSONParser.parse(bytes)
            #expect(reparsed == value)
            #expect(reparsed.serialized() == bytes)
        }
    }

    @Test func randomDoublesRoundTripBitExactly() throws {
        var generator = JSONTestRNG(seed: 0x5EED_0004)
        var checked = 0
        while checked < 20_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            checked += 1
            var writer = JSONWriter(capacity: 32)
            writer.number(value)
            let parsed = try JSONParser.parse(writer.bytes)
            #expect(parsed.doubleValue?.bitPattern == value.bitPattern, "\(value)")
        }
    }

    @Test func randomDecimalLiteralsMatchCorrectRounding() throws {
        // Exercises the fast path (short mantissas, small exponents) and the slow path
        // against the standard library's correctly rounded conversion.
        var generator = JSONTestRNG(seed: 0x5EED_0005)
        for _ in 0..<20_000 {
            let integerDigits = Int.random(in: 1...20, using: &generator)
            let fractionDigits = Int.random(in: 0...20, using: &generator)
            var literal = Bool.random(using: &generator) ? "-" : ""
            literal += String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<integerDigits {
                literal += String(Int.random(in: 0...9, using: &generator))
            }
            if fractionDigits > 0 {
                literal += "."
                for _ in 0..<fractionDigits {
                    literal += String(Int.random(in: 0...9, using: &generator))
                }
            }
            if Bool.random(using: &generator) {
                literal += "e\(Int.random(in: -40...40, using: &generator))"
            }
            let parsed = try parseJSON(literal)
            #expect(parsed.doubleValue == Double(literal), "\(literal)")
        }
    }

    // MARK: - Helpers

    private func mutate(_ document: inout [UInt8], using generator: inout JSONTestRNG) {
        let position = document.isEmpty ? 0 : Int.random(in: 0..<document.count, using: &generator)
        let byte = Bool.random(using: &generator)
            ? JSONFuzzTests.alphabet.randomElement(using: &generator)!
            : UInt8.random(in: 0...255, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0 where !document.isEmpty:
            document[position] = byte
        case 1:
            document.insert(byte, at: position)
        case 2 where !document.isEmpty:
            document.remove(at: position)
        case 3 where !document.isEmpty:
            let end = min(document.count, position + Int.random(in: 1...12, using: &generator))
            let chunk = document[position..<end]
            let target = Int.random(in: 0...document.count, using: &generator)
            document.insert(contentsOf: chunk, at: target)
        case 4 where !document.isEmpty:
            document.removeSubrange(position...)
        default:
            if document.count > 1 {
                document.swapAt(position, document.count - 1 - position / 2)
            }
        }
    }

    private func randomString(using generator: inout JSONTestRNG) -> String {
        let pool: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "\u{2028}",
            "\u{2029}", "😀", "\u{10FFFF}", "\u{FEFF}",
        ]
        var string = ""
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            string.unicodeScalars.append(pool.randomElement(using: &generator)!)
        }
        return string
    }

    private func randomNumber(using generator: inout JSONTestRNG) -> JSONNumber {
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: return JSONNumber(Int64(bitPattern: generator.next()))
        case 1: return JSONNumber(Int64.random(in: -1000...1000, using: &generator))
        case 2: return JSONNumber(Double.random(in: -1e6...1e6, using: &generator))
        case 3:
            let double = Double(bitPattern: generator.next())
            return JSONNumber(double.isFinite ? double : 0)
        default: return JSONNumber(Double(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 1e5)
        }
    }

    private func randomValue(depth: Int, using generator: inout JSONTestRNG) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 4 ? 4 : 6), using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .number(randomNumber(using: &generator))
        case 3: return .string(randomString(using: &generator))
        case 4:
            return .array((0..<Int.random(in: 0...5, using: &generator)).map { _ in
                randomValue(depth: depth + 1, using: &generator)
            })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                object[randomString(using: &generator)] = randomValue(depth: depth + 1, using: &generator)
            }
            return .object(object)
        }
    }
}
