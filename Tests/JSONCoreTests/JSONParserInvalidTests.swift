import JSONCore
import Testing

extension JSONParserInvalidTests {
    struct InvalidCase: Sendable, CustomTestStringConvertible {
        let input: [UInt8]
        let fragment: String
        let kind: JSONParseError.Kind
        let offset: Int?
        let label: String

        init(_ text: String, _ fragment: String, kind: JSONParseError.Kind = .syntax, offset: Int? = nil) {
            input = Array(text.utf8)
            self.fragment = fragment
            self.kind = kind
            self.offset = offset
            label = text
        }

        init(bytes: [UInt8], _ fragment: String, kind: JSONParseError.Kind = .invalidUTF8, offset: Int? = nil) {
            input = bytes
            self.fragment = fragment
            self.kind = kind
            self.offset = offset
            label = bytes.map { $0 < 0x80 ? String(Character(Unicode.Scalar($0))) : "<\(String($0, radix: 16))>" }.joined()
        }

        var testDescription: String { "\(label) → \(fragment)" }
    }
}

@Suite("Parser: invalid documents")
struct JSONParserInvalidTests {
    static let cases: [InvalidCase] = [
        // Empty / trailing data.
        InvalidCase("", "empty input", offset: 0),
        InvalidCase(" \n\t ", "empty input", offset: 4),
        InvalidCase("[1] x", "unexpected data after JSON value", offset: 4),
        InvalidCase("1 2", "unexpected data after JSON value", offset: 2),
        InvalidCase("{}{}", "unexpected data after JSON value", offset: 2),
        InvalidCase("\u{FEFF}1", "byte order mark is not allowed", offset: 0),
        // Structure.
        InvalidCase("[1,2,]", "trailing comma in array", offset: 5),
        InvalidCase(#"{"a":1,}"#, "trailing comma in object", offset: 7),
        InvalidCase("[1 2]", "expected ',' or ']' after array element", offset: 3),
        InvalidCase(#"{"a":1 "b":2}"#, "expected ',' or '}' after object member", offset: 7),
        InvalidCase(#"{"a":1]"#, "expected ',' or '}' after object member", offset: 6),
        InvalidCase(#"{"a" 1}"#, "expected ':' after object key", offset: 5),
        InvalidCase("{1:2}", "expected string key or '}'", offset: 1),
        InvalidCase(#"{"a":1,2}"#, "expected string key after ','", offset: 7),
        InvalidCase("[,1]", "unexpected character ',', expected a JSON value", offset: 1),
        InvalidCase("[", "unexpected end of input, expected a JSON value", offset: 1),
        InvalidCase("[1", "unexpected end of input, expected ',' or ']'", offset: 2),
        InvalidCase(#"{"a":"#, "unexpected end of input, expected a JSON value", offset: 5),
        InvalidCase(#"{"a""#, "unexpected end of input, expected ':' after object key", offset: 4),
        InvalidCase("{", "unexpected end of input, expected string key or '}'", offset: 1),
        InvalidCase("]", "unexpected character ']'", offset: 0),
        // Literals and non-JSON tokens.
        InvalidCase("tru", "invalid literal, expected 'true'", offset: 0),
        InvalidCase("nul", "invalid literal, expected 'null'"),
        InvalidCase("falsy", "invalid literal, expected 'false'"),
        InvalidCase("True", "unexpected character 'T'"),
        InvalidCase("NaN", "unexpected character 'N'"),
        InvalidCase("Infinity", "unexpected character 'I'"),
        InvalidCase("-Infinity", "expected digit after '-'", offset: 1),
        InvalidCase("'a'", "unexpected character '''"),
        InvalidCase("/* c */ 1", "unexpected character '/'"),
        InvalidCase("[1] // c", "unexpected data after JSON value"),
        InvalidCase("é", "unexpected character U+00E9", offset: 0),
        InvalidCase("\u{1}", "unexpected character U+0001"),
        // Numbers.
        InvalidCase("01", "leading zeros are not allowed", offset: 0),
        InvalidCase("-01", "leading zeros are not allowed", offset: 1),
        InvalidCase("[00]", "leading zeros are not allowed", offset: 1),
        InvalidCase("+1", "unexpected character '+'"),
        InvalidCase(".5", "unexpected character '.'"),
        InvalidCase("-", "unexpected end of input, expected digit after '-'", offset: 1),
        InvalidCase("1.", "expected digit after decimal point", offset: 2),
        InvalidCase("1.e5", "expected digit after decimal point", offset: 2),
        InvalidCase("1e", "expected digit in exponent", offset: 2),
        InvalidCase("1e+", "expected digit in exponent", offset: 3),
        InvalidCase("1e+x", "expected digit in exponent", offset: 3),
        InvalidCase("0x10", "unexpected data after JSON value", offset: 1),
        InvalidCase("1e999", "number out of range", offset: 0),
        InvalidCase("[-1e999]", "number out of range", offset: 1),
        InvalidCase("1" + String(repeating: "0", count: 400), "number out of range", offset: 0),
        InvalidCase("0." + String(repeating: "0", count: 400) + "1e99999", "number out of range"),
        // Strings.
        InvalidCase(#""abc"#, "unterminated string", offset: 0),
        InvalidCase(#"["abc\"]"#, "unterminated string", offset: 1),
        InvalidCase(#""abc\"#, "unterminated string", offset: 0),
        InvalidCase(#""\x""#, "invalid escape sequence '\\x'", offset: 1),
        InvalidCase(#""\'""#, "invalid escape sequence '\\''"),
        InvalidCase(#""\u12""#, "invalid \\u escape, expected 4 hex digits", offset: 1),
        InvalidCase(#""\u12G4""#, "invalid \\u escape, expected 4 hex digits"),
        InvalidCase(#""\U0041""#, "invalid escape sequence '\\U'"),
        InvalidCase(#""\uD800""#, "unpaired surrogate escape \\uD800", offset: 1),
        InvalidCase(#""\uDC00""#, "unpaired surrogate escape \\uDC00", offset: 1),
        InvalidCase(#""\uD800\u0041""#, "unpaired surrogate escape \\uD800"),
        InvalidCase(#""\uD800\uD800""#, "unpaired surrogate escape \\uD800"),
        InvalidCase(#""\uD83Dx""#, "unpaired surrogate escape \\uD83D"),
        InvalidCase("\"a\nb\"", "unescaped control character U+000A in string", offset: 2),
        InvalidCase("\"\t\"", "unescaped control character U+0009 in string", offset: 1),
        InvalidCase("\"\\n\u{1F}\"", "unescaped control character U+001F in string", offset: 3),
        InvalidCase("\"\u{0}\"", "unescaped control character U+0000 in string"),
        // Duplicate keys (small objects: linear scan; large: hash index).
        InvalidCase(#"{"x":1,"x":2}"#, #"duplicate key "x""#, offset: 7),
        InvalidCase(#"{"a":{"x":1,"y":{},"x":[]}}"#, #"duplicate key "x""#),
        InvalidCase(#"{"\u0078":1,"x":2}"#, #"duplicate key "x""#),
        InvalidCase(
            "{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k13\":0}",
            #"duplicate key "k13""#),
        InvalidCase(
            "{" + (0..<8).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k0\":0}",
            #"duplicate key "k0""#),
        InvalidCase(#"{"a\nb":1,"a\nb":2}"#, #"duplicate key "a\nb""#),
        // Depth.
        InvalidCase(
            String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nesting deeper than 64",
            kind: .limitExceeded, offset: 64),
        InvalidCase(
            String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65),
            "nesting deeper than 64", kind: .limitExceeded),
        InvalidCase(String(repeating: "[", count: 100_000), "nesting deeper than 64", kind: .limitExceeded),
        // Invalid UTF-8, inside strings and elsewhere.
        InvalidCase(bytes: [0x22, 0xFF, 0x22], "invalid byte 0xFF", offset: 1),
        InvalidCase(bytes: [0x22, 0x80, 0x22], "unexpected continuation byte 0x80", offset: 1),
        InvalidCase(bytes: [0x22, 0xC0, 0xAF, 0x22], "overlong encoding", offset: 1),
        InvalidCase(bytes: [0x22, 0xC1, 0xBF, 0x22], "overlong encoding", offset: 1),
        InvalidCase(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], "overlong encoding", offset: 1),
        InvalidCase(bytes: [0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], "overlong encoding", offset: 1),
        InvalidCase(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], "encoded surrogate", offset: 1),
        InvalidCase(bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22], "encoded surrogate", offset: 1),
        InvalidCase(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "code point above U+10FFFF", offset: 1),
        InvalidCase(bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], "invalid byte 0xF5", offset: 1),
        InvalidCase(bytes: [0x22, 0x61, 0xE2, 0x82, 0x22], "truncated sequence", offset: 2),
        InvalidCase(bytes: [0x22, 0xC3, 0x41, 0x22], "truncated sequence", offset: 1),
        InvalidCase(bytes: [0x22, 0xF0, 0x9F, 0x98], "truncated sequence", offset: 1),
        InvalidCase(bytes: [0x22, 0x5C, 0x6E, 0xFE, 0x22], "invalid byte 0xFE", offset: 3),
        InvalidCase(bytes: [0x5B, 0xFF, 0x5D], "invalid byte 0xFF", offset: 1),
        InvalidCase(bytes: [0x5B, 0x31, 0x5D, 0x20, 0xC3], "truncated sequence", offset: 4),
        InvalidCase(bytes: [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x31, 0xA0, 0x7D], "unexpected continuation byte", offset: 6),
        InvalidCase(bytes: [0xC0, 0x80], "overlong encoding", offset: 0),
    ]

    @Test(arguments: cases)
    func rejectsInvalidDocument(_ testCase: InvalidCase) throws {
        let error = try #require(jsonParseError(testCase.input))
        #expect(error.reason.contains(testCase.fragment), "reason: \(error.reason)")
        #expect(error.kind == testCase.kind)
        if let offset = testCase.offset {
            #expect(error.offset == offset)
        }
        #expect(error.offset >= 0 && error.offset <= testCase.input.count)
        #expect(error.line >= 1 && error.column >= 1)
    }

    @Test func messagesAreHumanReadable() throws {
        let member = try #require(jsonParseError(jsonBytes(#"{"a":1]"#)))
        #expect(member.description == "invalid JSON at line 1, column 7: expected ',' or '}' after object member")

        let utf8 = try #require(jsonParseError(jsonBytes(#"{"name":"ab"#) + [0xFF] + jsonBytes(#""}"#)))
        #expect(utf8.description == "invalid UTF-8 at byte 11")
        #expect(utf8.offset == 11)

        let deep = try #require(jsonParseError(jsonBytes(String(repeating: "[", count: 70))))
        #expect(deep.description == "nesting deeper than 64")

        let duplicate = try #require(jsonParseError(jsonBytes(#"{"id":1,"id":2}"#)))
        #expect(duplicate.description == #"invalid JSON at line 1, column 9: duplicate key "id""#)

        let range = try #require(jsonParseError(jsonBytes("[1e999]")))
        #expect(range.description == "invalid JSON at line 1, column 2: number out of range")

        let empty = try #require(jsonParseError([]))
        #expect(empty.description == "invalid JSON at line 1, column 1: empty input")
    }

    @Test func linesAndColumns() throws {
        let error = try #require(jsonParseError(jsonBytes("[\n  1,\n  x]")))
        #expect(error.line == 3)
        #expect(error.column == 3)
        #expect(error.offset == 9)
        // Columns count characters, not bytes.
        let unicode = try #require(jsonParseError(jsonBytes("[\"é€😀\" 1]")))
        #expect(unicode.line == 1)
        #expect(unicode.column == 8)
        #expect(unicode.offset == 13)
        let crlf = try #require(jsonParseError(jsonBytes("{\r\n\"a\": tru\r\n}")))
        #expect(crlf.line == 2)
        #expect(crlf.column == 6)
    }

    @Test func limits() throws {
        let short = JSONParser.Limits(maxStringLength: 3)
        let long = try #require(jsonParseError(jsonBytes(#"["abc","abcd"]"#), limits: short))
        #expect(long.kind == .limitExceeded)
        #expect(long.description == "string longer than 3 bytes")
        #expect(long.offset == 7)
        let escaped = try #require(jsonParseError(jsonBytes(#"["\u00e9\u00e9"]"#), limits: short))
        #expect(escaped.description == "string longer than 3 bytes")
        let key = try #require(jsonParseError(jsonBytes(#"{"abcd":1}"#), limits: short))
        #expect(key.description == "string longer than 3 bytes")

        let size = try #require(jsonParseError(jsonBytes("[1, 2]"), limits: JSONParser.Limits(maxInputSize: 5)))
        #expect(size.kind == .limitExceeded)
        #expect(size.description == "input larger than 5 bytes")

        let depth = try #require(jsonParseError(jsonBytes("[[[]]]"), limits: JSONParser.Limits(maxDepth: 2)))
        #expect(depth.description == "nesting deeper than 2")
        #expect(depth.offset == 2)
        let scalarOnly = JSONParser.Limits(maxDepth: 0)
        #expect(jsonParseError(jsonBytes("[]"), limits: scalarOnly)?.description == "nesting deeper than 0")
        #expect(jsonParseError(jsonBytes("1"), limits: scalarOnly) == nil)
    }

    @Test func rejectsEveryInvalidUTF8LeadByteAndAcceptsEveryValidOne() {
        // Every byte value as the only content of a string: ASCII >= 0x20 except '"' and
        // '\' is valid; everything >= 0x80 alone is invalid UTF-8.
        for byte in UInt8.min...UInt8.max {
            let error = jsonParseError([0x22, byte, 0x22])
            switch byte {
            case 0x20..<0x80 where byte != 0x22 && byte != 0x5C:
                #expect(error == nil, "byte \(byte)")
            case 0x80...:
                #expect(error?.kind == .invalidUTF8, "byte \(byte)")
            default:
                #expect(error != nil, "byte \(byte)")
            }
        }
    }

    @Test func utf8ValidationMatchesTheStandardLibrary() {
        // All 2- and 3-byte sequences (and a sample of 4-byte ones) inside a string must be
        // accepted exactly when Swift's own UTF-8 validation accepts them.
        var mismatches = 0
        for b1 in UInt8(0xC0)...0xF4 {
            for b2 in UInt8(0x70)...0xC5 {
                let twoByte: [UInt8] = [b1, b2]
                mismatches += check(twoByte) ? 0 : 1
                for b3 in [UInt8(0x41), 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
                    mismatches += check([b1, b2, b3]) ? 0 : 1
                    mismatches += check([b1, b2, b3, 0x80]) ? 0 : 1
                }
            }
        }
        #expect(mismatches == 0)

        func check(_ sequence: [UInt8]) -> Bool {
            let document: [UInt8] = [0x22] + sequence + [0x22]
            let stdlibValid = String(validating: sequence, as: UTF8.self) != nil
            let parsed = try? JSONParser.parse(document)
            if stdlibValid {
                // Valid UTF-8 may still contain a raw control char or quote; those must
                // not be reported as encoding errors.
                return parsed != nil || jsonParseError(document)?.kind != .invalidUTF8
            }
            return jsonParseError(document)?.kind == .invalidUTF8
        }
    }
}
