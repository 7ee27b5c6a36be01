import JSONCore
import Testing

extension JSONParserValidTests {
    struct ValidCase: Sendable, CustomTestStringConvertible {
        let input: String
        let expected: JSONValue
        var testDescription: String { input }
    }

    struct NumberCase: Sendable, CustomTestStringConvertible {
        let literal: String
        let double: Double
        let int64: Int64?
        var testDescription: String { literal }
    }
}

@Suite("Parser: valid documents")
struct JSONParserValidTests {
    static let documents: [ValidCase] = [
        ValidCase(input: "null", expected: .null),
        ValidCase(input: "true", expected: true),
        ValidCase(input: "false", expected: false),
        ValidCase(input: "0", expected: 0),
        ValidCase(input: "-12", expected: -12),
        ValidCase(input: "1.5", expected: 1.5),
        ValidCase(input: "-1.5e-3", expected: -0.0015),
        ValidCase(input: "1E+2", expected: 100),
        ValidCase(input: "\"\"", expected: ""),
        ValidCase(input: "\"abc\"", expected: "abc"),
        ValidCase(input: "[]", expected: []),
        ValidCase(input: "{}", expected: [:]),
        ValidCase(input: " \t\r\n[ 1 , 2 ]\n ", expected: [1, 2]),
        ValidCase(input: "[1,[2,[3,[]]],{}]", expected: [1, [2, [3, []]], [:]]),
        ValidCase(
            input: #"{"a":{"b":[true,false,null]},"c":"d","e":-0.5}"#,
            expected: ["a": ["b": [true, false, nil]], "c": "d", "e": -0.5]),
        ValidCase(input: #"{ "k" : [ ] , "l" : { } }"#, expected: ["k": [], "l": [:]]),
        // Escapes.
        ValidCase(input: #""\"\\\/\b\f\n\r\t""#, expected: "\"\\/\u{8}\u{C}\n\r\t"),
        ValidCase(input: #""\u0041\u00e9\u20AC\u00E9""#, expected: "Aé€é"),
        ValidCase(input: #""\u0000x""#, expected: "\u{0}x"),
        ValidCase(input: #""\uD83D\uDE00""#, expected: "😀"),
        ValidCase(input: #""a\uD834\uDD1Eb""#, expected: "a𝄞b"),
        ValidCase(input: #""\uDBFF\uDFFF""#, expected: "\u{10FFFF}"),
        ValidCase(input: #""\u2028\u2029""#, expected: "\u{2028}\u{2029}"),
        ValidCase(input: #""abc\ndef""#, expected: "abc\ndef"),
        // Raw UTF-8, including the largest scalar and all sequence lengths.
        ValidCase(input: "\"é€😀\u{10FFFF}\u{7F}\"", expected: "é€😀\u{10FFFF}\u{7F}"),
        ValidCase(input: "{\"ключ\":\"значение\"}", expected: ["ключ": "значение"]),
        // Any value at top level.
        ValidCase(input: "  \"top\"  ", expected: "top"),
        ValidCase(input: "-0.0", expected: .number(JSONNumber(-0.0))),
    ]

    @Test(arguments: documents)
    func parsesValidDocument(_ testCase: ValidCase) throws {
        #expect(try parseJSON(testCase.input) == testCase.expected)
    }

    static let numbers: [NumberCase] = [
        NumberCase(literal: "0", double: 0, int64: 0),
        NumberCase(literal: "-0", double: -0.0, int64: 0),
        NumberCase(literal: "7", double: 7, int64: 7),
        NumberCase(literal: "1.0", double: 1, int64: 1),
        NumberCase(literal: "1e3", double: 1000, int64: 1000),
        NumberCase(literal: "1.5", double: 1.5, int64: nil),
        NumberCase(literal: "0.1", double: 0.1, int64: nil),
        NumberCase(literal: "-74.07157", double: -74.07157, int64: nil),
        NumberCase(literal: "1593475200000", double: 1_593_475_200_000, int64: 1_593_475_200_000),
        NumberCase(literal: "9007199254740993", double: 9_007_199_254_740_992, int64: 9_007_199_254_740_993),
        NumberCase(literal: "9223372036854775807", double: 9_223_372_036_854_775_808, int64: Int64.max),
        NumberCase(literal: "-9223372036854775808", double: -9_223_372_036_854_775_808, int64: Int64.min),
        NumberCase(literal: "9223372036854775808", double: 9_223_372_036_854_775_808, int64: nil),
        NumberCase(literal: "-9223372036854775809", double: -9_223_372_036_854_775_808, int64: nil),
        NumberCase(literal: "18446744073709551615", double: 18_446_744_073_709_551_616, int64: nil),
        NumberCase(literal: "18446744073709551616", double: 18_446_744_073_709_551_616, int64: nil),
        NumberCase(literal: "123456789012345678901234567890", double: 1.2345678901234568e29, int64: nil),
        NumberCase(literal: "1e20", double: 1e20, int64: nil),
        NumberCase(literal: "9007199254740992.0", double: 9_007_199_254_740_992, int64: 9_007_199_254_740_992),
        NumberCase(literal: "1e308", double: 1e308, int64: nil),
        NumberCase(literal: "-1.7976931348623157e308", double: -1.7976931348623157e308, int64: nil),
        NumberCase(literal: "2.2250738585072014e-308", double: 2.2250738585072014e-308, int64: nil),
        NumberCase(literal: "4.9e-324", double: .leastNonzeroMagnitude, int64: nil),
        NumberCase(literal: "1e-400", double: 0, int64: 0),
        NumberCase(literal: "0e999999999", double: 0, int64: 0),
        NumberCase(literal: "3.141592653589793238462643383279", double: Double.pi, int64: nil),
        NumberCase(literal: "0.000001234", double: 0.000001234, int64: nil),
        NumberCase(literal: "1.00000000000000000000000001", double: 1, int64: 1),
        // Exactly halfway between 2 and the next double (ties to even), and just above it.
        NumberCase(literal: "2.0000000000000002220446049250313080847263336181640625", double: 2, int64: 2),
        NumberCase(literal: "2.0000000000000002220446049250313080847263336181640626", double: 2.0000000000000004, int64: nil),
        NumberCase(literal: "1E-7", double: 1e-7, int64: nil),
        NumberCase(literal: "12345678.9e-3", double: 12345.6789, int64: nil),
    ]

    @Test(arguments: numbers)
    func parsesNumberExactly(_ testCase: NumberCase) throws {
        let value = try parseJSON(testCase.literal)
        let number = try #require(value.numberValue)
        #expect(number.double == testCase.double)
        #expect(number.double.sign == testCase.double.sign)
        #expect(number.int64 == testCase.int64)
        #expect(value.int64Value == testCase.int64)
        #expect(value.doubleValue == testCase.double)
        // The slow path is the stdlib's correctly rounded conversion; every literal must agree.
        #expect(number.double == Double(testCase.literal))
    }

    @Test func integerFlag() throws {
        #expect(try parseJSON("3").numberValue?.isInteger == true)
        #expect(try parseJSON("3.0").numberValue?.isInteger == true)
        #expect(try parseJSON("1e300").numberValue?.isInteger == true)
        #expect(try parseJSON("123456789012345678901234567890").numberValue?.isInteger == true)
        #expect(try parseJSON("3.5").numberValue?.isInteger == false)
        #expect(try parseJSON("1e-3").numberValue?.isInteger == false)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth64 = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parseJSON(depth64) }
        let objects = String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64)
        #expect(throws: Never.self) { try parseJSON(objects) }
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try parseJSON(deep, limits: JSONParser.Limits(maxDepth: 500)) }
    }

    @Test func keepsObjectOrderAndLooksUpKeys() throws {
        let value = try parseJSON(#"{"z":1,"a":2,"m":{"x":[10,20]}}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value["a"] == 2)
        #expect(value["m"]?["x"]?[1] == 20)
        #expect(value["missing"] == nil)
        #expect(value["m"]?["x"]?[2] == nil)
    }

    @Test func largeObjectsUseIndexedLookup() throws {
        let members = (0..<50).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let value = try parseJSON("{\(members)}")
        let object = try #require(value.objectValue)
        #expect(object.count == 50)
        for i in 0..<50 {
            #expect(object["k\(i)"] == .number(JSONNumber(i)))
        }
        #expect(object.keys == (0..<50).map { "k\($0)" })
        #expect(object["k50"] == nil)
    }

    @Test func longStringsAndLimitsThatAreNotExceeded() throws {
        let long = String(repeating: "abcdefgh", count: 5000)
        #expect(try parseJSON("\"\(long)\"") == .string(long))
        let escaped = String(repeating: "a\\n", count: 1000)
        #expect(try parseJSON("\"\(escaped)\"") == .string(String(repeating: "a\n", count: 1000)))
        let limits = JSONParser.Limits(maxStringLength: 3, maxInputSize: 12)
        #expect(try parseJSON(#"["abc","\n\n\n"]"#, limits: JSONParser.Limits(maxStringLength: 3)) == ["abc", "\n\n\n"])
        #expect(try parseJSON(#"{"abc":"é"}"#, limits: limits) == ["abc": "é"])
    }

    @Test func inputVariants() throws {
        let text = #"{"a":[1,2.5,"x"]}"#
        let expected: JSONValue = ["a": [1, 2.5, "x"]]
        #expect(try JSONParser.parse(text) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
        #expect(try JSONParser.parse(Array(text.utf8)[...]) == expected)
        #expect(try JSONParser.parse(text.utf8) == expected)
        let array = Array(text.utf8)
        let fromRaw = try array.withUnsafeBytes { raw throws(JSONParseError) in try JSONParser.parse(raw) }
        #expect(fromRaw == expected)
        let fromBuffer = try array.withUnsafeBufferPointer { buffer throws(JSONParseError) in try JSONParser.parse(buffer) }
        #expect(fromBuffer == expected)
        #if compiler(>=6.2)
        #expect(try JSONParser.parse(array.span) == expected)
        #endif
        // A non-contiguous collection is copied first.
        let lazyBytes = text.utf8.lazy.map { $0 }
        #expect(try JSONParser.parse(lazyBytes) == expected)
    }
}
