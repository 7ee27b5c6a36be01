import JSONCore
import Testing

extension JSONWriterTests {
    struct FixedCase: Sendable, CustomTestStringConvertible {
        let value: Double
        let digits: Int
        let expected: String
        var testDescription: String { "\(value) @\(digits) → \(expected)" }
    }

    struct DoubleCase: Sendable, CustomTestStringConvertible {
        let value: Double
        let expected: String
        var testDescription: String { "\(value) → \(expected)" }
    }
}

@Suite("Writer")
struct JSONWriterTests {
    @Test func escapesStrings() {
        let input = "a\"b\\c/d\n\t\r\u{8}\u{C}\u{1}\u{1F}\u{7F} \u{2028}\u{2029}é😀\u{0}"
        let expected = #""a\"b\\c/d\n\t\r\b\f\u0001\u001f"# + "\u{7F} " + #"\u2028\u2029"# + "é😀" + #"\u0000""#
        #expect(serializedJSONText(.string(input)) == expected)
        #expect(serializedJSONText(.string("")) == #""""#)
        #expect(serializedJSONText(.string("plain ascii text")) == #""plain ascii text""#)
        // U+2027 / U+202A share the E2 80 prefix and must pass through unescaped.
        #expect(serializedJSONText(.string("\u{2027}\u{202A}€")) == "\"\u{2027}\u{202A}€\"")
        // Keys are escaped the same way.
        #expect(serializedJSONText(["k\"\n": 1]) == #"{"k\"\n":1}"#)
    }

    /// Strings are skipped eight bytes at a time until a byte needs a look: a special byte at
    /// every position of long plain runs is still escaped.
    @Test func escapesAtEveryOffsetOfLongRuns() {
        let specials: [(String, String)] = [("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1F}", #"\u001f"#),
                                            ("\u{2028}", #"\u2028"#), ("é", "é"), ("\u{7F}", "\u{7F}"), (" ", " ")]
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31] {
            for offset in 0...length {
                for (special, escaped) in specials {
                    let before = String(repeating: "a", count: offset), after = String(repeating: "b", count: length - offset)
                    #expect(serializedJSONText(.string(before + special + after)) == "\"" + before + escaped + after + "\"")
                }
            }
        }
    }

    @Test func asciiKeysAreWrittenAsKeysAre() {
        var fast = JSONWriter(), plain = JSONWriter()
        fast.beginArray(); plain.beginArray()
        for _ in 0..<2 {
            fast.beginObject(); fast.key(ascii: "deviceId"); fast.string("d_1"); fast.key(ascii: "location"); fast.number(1.5); fast.endObject()
            plain.beginObject(); plain.key("deviceId"); plain.string("d_1"); plain.key("location"); plain.number(1.5); plain.endObject()
        }
        fast.beginObject(); fast.endObject(); plain.beginObject(); plain.endObject()
        fast.endArray(); plain.endArray()
        #expect(String(decoding: fast.bytes, as: UTF8.self) == #"[{"deviceId":"d_1","location":1.5},{"deviceId":"d_1","location":1.5},{}]"#)
        #expect(fast.bytes == plain.bytes)
    }

    @Test func escapedStringsRoundTrip() throws {
        var scalars: [Unicode.Scalar] = []
        for value in UInt32(0)...0x2100 {
            if let scalar = Unicode.Scalar(value) {
                scalars.append(scalar)
            }
        }
        scalars += ["\u{2028}", "\u{2029}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}"]
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        let value = JSONValue.string(text)
        let bytes = value.serialized()
        // No raw control characters or line/paragraph separators in the output.
        #expect(!bytes.contains { $0 < 0x20 })
        #expect(!String(decoding: bytes, as: UTF8.self).unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{2029}" })
        #expect(try JSONParser.parse(bytes) == value)
    }

    static let doubles: [DoubleCase] = [
        DoubleCase(value: 3.0, expected: "3"),
        DoubleCase(value: -3.0, expected: "-3"),
        DoubleCase(value: 0.0, expected: "0"),
        DoubleCase(value: -0.0, expected: "-0"),
        DoubleCase(value: 0.1, expected: "0.1"),
        DoubleCase(value: -74.07157, expected: "-74.07157"),
        DoubleCase(value: 1e-5, expected: "1e-05"),
        DoubleCase(value: 1.5e-7, expected: "1.5e-07"),
        DoubleCase(value: 5e20, expected: "5e+20"),
        DoubleCase(value: 1e16, expected: "1e+16"),
        DoubleCase(value: 1e15, expected: "1000000000000000"),
        DoubleCase(value: 9_007_199_254_740_992, expected: "9007199254740992"),
        DoubleCase(value: -9_007_199_254_740_992, expected: "-9007199254740992"),
        DoubleCase(value: 9_007_199_254_740_994, expected: "9.007199254740994e+15"),
        DoubleCase(value: 1.7976931348623157e308, expected: "1.7976931348623157e+308"),
        DoubleCase(value: .leastNonzeroMagnitude, expected: "5e-324"),
        DoubleCase(value: 123.456, expected: "123.456"),
        DoubleCase(value: .nan, expected: "null"),
        DoubleCase(value: .infinity, expected: "null"),
        DoubleCase(value: -.infinity, expected: "null"),
    ]

    @Test(arguments: doubles)
    func formatsDoubles(_ testCase: DoubleCase) throws {
        #expect(writtenJSON { $0.number(testCase.value) } == testCase.expected)
        #expect(serializedJSONText(.number(JSONNumber(testCase.value))) == testCase.expected)
        if testCase.value.isFinite {
            let reparsed = try parseJSON(testCase.expected)
            #expect(reparsed.doubleValue == testCase.value)
            #expect(reparsed.doubleValue?.sign == testCase.value.sign)
        }
    }

    @Test func formatsIntegers() throws {
        #expect(writtenJSON { $0.number(Int64.max) } == "9223372036854775807")
        #expect(writtenJSON { $0.number(Int64.min) } == "-9223372036854775808")
        #expect(writtenJSON { $0.number(0 as Int64) } == "0")
        #expect(writtenJSON { $0.number(-7) } == "-7")
        #expect(writtenJSON { $0.number(1_593_475_200_000 as Int) } == "1593475200000")
        // Exact int64 beyond 2^53 survives parse → serialize.
        for literal in ["9007199254740993", "9223372036854775807", "-9223372036854775808", "-0", "1593475200123"] {
            #expect(try parseJSON(literal).serializedString() == literal)
        }
        // Numbers without an exact int64 are written from their double.
        #expect(try parseJSON("9223372036854775808").serializedString() == "9.223372036854776e+18")
        #expect(try parseJSON("1.0").serializedString() == "1")
        #expect(try parseJSON("1E3").serializedString() == "1000")
        #expect(try parseJSON("-0.0").serializedString() == "-0")
    }

    static let fixed: [FixedCase] = [
        FixedCase(value: -74.0715700, digits: 7, expected: "-74.07157"),
        FixedCase(value: 40.64409, digits: 7, expected: "40.64409"),
        FixedCase(value: -74.07157123456, digits: 7, expected: "-74.0715712"),
        FixedCase(value: 179.99999999, digits: 7, expected: "180"),
        FixedCase(value: 1.0, digits: 7, expected: "1"),
        FixedCase(value: 0, digits: 3, expected: "0"),
        FixedCase(value: -0.0, digits: 3, expected: "0"),
        FixedCase(value: -0.00000004, digits: 7, expected: "0"),
        FixedCase(value: 0.00000006, digits: 7, expected: "0.0000001"),
        // 5e-8 is really 4.99999999999999977e-8: below the tie although 5e-8 * 1e7 == 0.5.
        FixedCase(value: 0.00000005, digits: 7, expected: "0"),
        FixedCase(value: 0.00000025, digits: 7, expected: "0.0000002"),
        FixedCase(value: 0.000001, digits: 7, expected: "0.000001"),
        FixedCase(value: 0.1, digits: 1, expected: "0.1"),
        FixedCase(value: 0.1, digits: 15, expected: "0.1"),
        FixedCase(value: 99.99, digits: 1, expected: "100"),
        FixedCase(value: 123.456, digits: 1, expected: "123.5"),
        FixedCase(value: 123.456, digits: 2, expected: "123.46"),
        FixedCase(value: 2.5, digits: 0, expected: "3"),
        FixedCase(value: -2.5, digits: 0, expected: "-3"),
        FixedCase(value: 0.125, digits: 2, expected: "0.13"),  // exact tie: away from zero
        // The product lands exactly on .5 but the true value is not a tie: decided exactly.
        FixedCase(value: 0.015, digits: 2, expected: "0.01"),
        FixedCase(value: 0.005, digits: 2, expected: "0.01"),
        FixedCase(value: 0.045, digits: 2, expected: "0.04"),
        FixedCase(value: 1.005, digits: 2, expected: "1"),
        FixedCase(value: 3.14159, digits: -2, expected: "3"),  // clamped to 0
        FixedCase(value: 12.3, digits: 40, expected: "12.3"),  // clamped to 15 → too precise → shortest form
        FixedCase(value: 1e20, digits: 2, expected: "1e+20"),
        FixedCase(value: 123_456_789_012.5, digits: 7, expected: "123456789012.5"),
        FixedCase(value: .nan, digits: 3, expected: "null"),
        FixedCase(value: -.infinity, digits: 3, expected: "null"),
    ]

    @Test(arguments: fixed)
    func formatsFixedDecimals(_ testCase: FixedCase) {
        #expect(writtenJSON { $0.number(testCase.value, fractionDigits: testCase.digits) } == testCase.expected)
    }

    @Test func fixedDecimalsAgreeWithShortestFormForCoordinates() throws {
        var generator = JSONTestRNG(seed: 7)
        for _ in 0..<2000 {
            // Coordinates with at most 7 decimals print identically either way (above
            // 1e-3, where the shortest form switches to exponent notation below 1e-4).
            let micro = Int64.random(in: -1_800_000_000...1_800_000_000, using: &generator)
            guard micro.magnitude >= 10_000 else { continue }
            let value = Double(micro) / 1e7
            #expect(writtenJSON { $0.number(value, fractionDigits: 7) } == writtenJSON { $0.number(value) })
        }
    }

    @Test func shortDecimalsAreWrittenAsTheirShortestForm() throws {
        var generator = JSONTestRNG(seed: 11)
        var values: [Double] = [0.001, -0.001, 0.0015, 0.0009999, 0.00099, 1e-3 + 1e-7, 0.1, 0.2, 0.3, 1.5, -2.25,
                                0.1 + 0.2, 1 / 3, 2.0 / 3, 67_108_863.9999999, 67_108_864.5, 67_108_863.5,
                                179.9999999, -180.0000001, 12_345_678.1234567, 1e-7, 5e-4, 0.0001234]
        for _ in 0..<20_000 {
            let e7 = Int64.random(in: -1_800_000_000...1_800_000_000, using: &generator)
            values.append(Double(e7) / 1e7)
            values.append(Double(e7) / 1e6)
            values.append(Double(e7) / 1e9)
            values.append(Double(e7) * 0.1 + Double.random(in: -1...1, using: &generator))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)))
        }
        for value in values where value.isFinite && value.rounded() != value {
            #expect(writtenJSON { $0.number(value) } == value.description, "\(value)")
            #expect(try parseJSON(writtenJSON { $0.number(value) }).doubleValue == value)
        }
    }

    @Test func streamsDocuments() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id")
        writer.number(42 as Int64)
        writer.key("location")
        writer.beginArray()
        writer.number(-74.0715700, fractionDigits: 7)
        writer.number(40.6440900, fractionDigits: 7)
        writer.endArray()
        writer.key("empty")
        writer.beginArray()
        writer.endArray()
        writer.key("nested")
        writer.beginObject()
        writer.endObject()
        writer.key("flags")
        writer.beginArray()
        writer.bool(true)
        writer.bool(false)
        writer.null()
        writer.string("s")
        writer.beginObject()
        writer.key("k")
        writer.write(["v": [1, 2]])
        writer.endObject()
        writer.write(nil)
        writer.endArray()
        writer.key("n")
        writer.number(JSONNumber(2.5))
        writer.endObject()
        #expect(writer.depth == 0)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(
            text
                == #"{"id":42,"location":[-74.07157,40.64409],"empty":[],"nested":{},"flags":[true,false,null,"s",{"k":{"v":[1,2]}},null],"n":2.5}"#
        )
    }

    @Test func writerBufferManagement() {
        var writer = JSONWriter(appendingTo: Array("data: ".utf8))
        writer.beginArray()
        #expect(writer.depth == 1)
        writer.number(1)
        writer.endArray()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "data: [1]")
        writer.reset()
        #expect(writer.bytes.isEmpty)
        writer.string("again")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""again""#)
    }

    @Test func serializesValuesCompactlyInOrder() {
        let value: JSONValue = ["z": 1, "a": [true, nil, "x", 2.5, ["k": []]], "m": [:]]
        #expect(value.serializedString() == #"{"z":1,"a":[true,null,"x",2.5,{"k":[]}],"m":{}}"#)
        #expect(value.description == value.serializedString())
        #expect(value.serialized() == Array(value.serializedString().utf8))
        #expect(JSONNumber(1.5).description == "1.5")
    }

    static let roundTripDocuments: [String] = [
        "null", "true", "0", "-0", "-0.0", "1e308", "5e-324", "-1.5e-300", "0.1", "123456789.123456789",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e400000000", "[]", "{}",
        #""\u0000\u001f\"\\/\b\f\n\r\t\u2028\u2029é😀""#, #"[1,[2,[3,[4,{}]]]]"#,
        #"{"locations":[{"location":[-74.07157,40.64409],"timestamp":"2020-06-30T00:00:00Z","id":"abc"}]}"#,
        #"{"b":{"c":[null,true,false,{"d":"e"}]},"a":-12.5e10,"big":123456789012345678901234567890}"#,
    ]

    @Test(arguments: roundTripDocuments)
    func roundTrips(_ document: String) throws {
        guard let first = try? parseJSON(document) else {
            // 1e400000000 is out of range and must be rejected rather than round-trip.
            #expect(document == "1e400000000")
            return
        }
        let bytes = first.serialized()
        let second = try JSONParser.parse(bytes)
        #expect(second == first)
        // Serialization is a fixed point after one pass.
        #expect(second.serialized() == bytes)
    }
}
