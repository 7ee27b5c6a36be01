import JSONCore
import Testing

/// Feeds `input` to a tokenizer in chunks (sizes drawn from `generator`, or all at once) and
/// rebuilds the value from the tokens, so the stream can be compared with `JSONParser`.
func streamValue(_ input: [UInt8], generator: inout JSONTestRNG, maxChunk: Int = 16,
                 limits: JSONStreamTokenizer.Limits = .init()) throws(JSONStreamError) -> JSONValue {
    enum Frame { case array([JSONValue]), object(JSONObject, key: String?) }
    var tokenizer = JSONStreamTokenizer(limits: limits)
    var stack: [Frame] = []
    var result: JSONValue?
    var offset = 0
    func add(_ value: JSONValue) {
        switch stack.popLast() {
        case .array(var items)?: items.append(value); stack.append(.array(items))
        case .object(var object, let key?)?: object[key] = value; stack.append(.object(object, key: nil))
        default: result = value
        }
    }
    while true {
        let step = try tokenizer.next()
        switch step {
        case .end:
            guard let result else { throw JSONStreamError(kind: .truncated, offset: 0, reason: "no value") }
            return result
        case .needInput:
            if offset >= input.count { tokenizer.finish(); continue }
            let size = min(input.count - offset, Int.random(in: 1...maxChunk, using: &generator))
            tokenizer.append(Array(input[offset..<(offset + size)]))
            offset += size
        case .token(let token):
            switch token.kind {
            case .beginArray: stack.append(.array([]))
            case .beginObject: stack.append(.object(JSONObject(), key: nil))
            case .endArray, .endObject:
                switch stack.popLast() {
                case .array(let items)?: add(.array(items))
                case .object(let object, _)?: add(.object(object))
                case nil: Issue.record("unbalanced end token")
                }
            case .key:
                guard case .object(let object, nil)? = stack.popLast() else { Issue.record("key outside an object"); break }
                stack.append(.object(object, key: tokenizer.string(token) ?? "\u{FFFD}invalid"))
            case .string: add(tokenizer.string(token).map(JSONValue.string) ?? .string("\u{FFFD}invalid"))
            case .number: add(tokenizer.number(token).map(JSONValue.number) ?? .null)
            case .bool: add(.bool(token.boolValue))
            case .null: add(.null)
            }
        }
    }
}

@Suite("Stream tokenizer")
struct JSONStreamTokenizerTests {
    @Test func agreesWithTheParserOnValidDocumentsWhateverTheChunks() throws {
        var generator = JSONTestRNG(seed: 0x5EED_0101)
        for seed in JSONFuzzTests.seeds {
            let bytes = Array(seed.utf8)
            let expected = try JSONParser.parse(bytes)
            for maxChunk in [1, 2, 3, 7, 64] {
                #expect(try streamValue(bytes, generator: &generator, maxChunk: maxChunk) == expected, "\(seed)")
            }
        }
    }

    @Test func rejectsEverySyntaxErrorThePaserRejects() {
        var generator = JSONTestRNG(seed: 0x5EED_0102)
        // The tokenizer leaves UTF-8 validation and duplicate keys to whoever decodes the values.
        // Numbers beyond Double's range and lone surrogate escapes are well-formed tokens whose
        // values do not decode: `number(_:)` / `string(_:)` return nil for them (checked below).
        let deferred = ["duplicate key", "out of range", "surrogate"]
        let cases = JSONParserInvalidTests.cases.filter { c in c.kind == .syntax && !deferred.contains { c.fragment.contains($0) } }
        #expect(cases.count > 30)
        for invalid in cases {
            do {
                let value = try streamValue(invalid.input, generator: &generator, maxChunk: 3)
                Issue.record("accepted \(invalid.label) as \(value)")
            } catch {
                #expect(error.offset >= 0 && error.offset <= invalid.input.count, "\(invalid.label)")
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test func mutatedDocumentsNeverTrapAndAgreeWithTheParser() {
        var generator = JSONTestRNG(seed: 0x5EED_0103)
        var accepted = 0
        for iteration in 0..<10_000 {
            var document = Array(JSONFuzzTests.seeds[iteration % JSONFuzzTests.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0...document.count, using: &generator)
                let byte = JSONFuzzTests.alphabet.randomElement(using: &generator) ?? 0
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where position < document.count: document[position] = byte
                case 1: document.insert(byte, at: position)
                default: if position < document.count { document.removeSubrange(position...) }
                }
            }
            let parsed = try? JSONParser.parse(document)
            do {
                let streamed = try streamValue(document, generator: &generator)
                if let parsed { #expect(streamed == parsed); accepted += 1 }
            } catch {
                #expect(parsed == nil, "rejected what the parser accepts: \(String(decoding: document, as: UTF8.self))")
                #expect(error.offset >= 0 && error.offset <= document.count)
            }
        }
        #expect(accepted > 100)
    }

    @Test func tokensWhoseValuesDoNotDecode() throws {
        var generator = JSONTestRNG(seed: 3)
        #expect(try streamValue(Array("[1e999]".utf8), generator: &generator) == [nil])
        #expect(try streamValue(Array(#"["\uD800x"]"#.utf8), generator: &generator) == ["\u{FFFD}invalid"])
    }

    @Test func truncationIsReportedAsSuch() {
        var generator = JSONTestRNG(seed: 1)
        for text in [#"{"a": [1, 2"#, #"{"a": "unterminated"#, "[tru", "-", #"{"a""#, "[1.5e"] {
            #expect(throws: JSONStreamError.self) { try streamValue(Array(text.utf8), generator: &generator) }
            do { _ = try streamValue(Array(text.utf8), generator: &generator) } catch {
                #expect(error.kind == .truncated, "\(text): \(error)")
            }
        }
    }

    @Test func limitsAreErrorsNotCrashes() {
        var generator = JSONTestRNG(seed: 2)
        let deep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        do { _ = try streamValue(deep, generator: &generator); Issue.record("too deep accepted") } catch {
            #expect(error.kind == .limitExceeded && error.reason == "nesting deeper than 64")
        }
        let long = Array(("[\"" + String(repeating: "x", count: 100) + "\"]").utf8)
        do { _ = try streamValue(long, generator: &generator, limits: .init(maxTokenBytes: 50)); Issue.record("long string accepted") } catch {
            #expect(error.kind == .limitExceeded)
        }
        let huge = Array(("[" + String(repeating: "9", count: 400) + "]").utf8)
        #expect((try? streamValue(huge, generator: &generator)) == [nil], "beyond Double's range: no value, and no crash")
    }

    /// Found by the jsonstream fuzzer: a string of exactly the limit was refused when its closing
    /// quote had not arrived yet, and what followed a too-long string (a control character) could
    /// decide the error; now the outcome is the same whatever the chunking.
    @Test func stringLimitsDoNotDependOnChunking() {
        let cases: [(text: String, kind: JSONStreamError.Kind, offset: Int)] = [
            (#""anVV#VVVVVVVV"af""#, .syntax, 15),                       // 13 bytes fit; the trailing data is the error
            ("[\"" + String(repeating: "x", count: 20) + "\u{01}\"]", .limitExceeded, 1),
            ("[\"" + String(repeating: "x", count: 12) + "\\\\", .limitExceeded, 1), // an escape pair crosses the limit
            ("[\"" + String(repeating: "x", count: 11), .truncated, 13),
        ]
        for c in cases {
            for maxChunk in [1, 2, 3, 64] {
                var generator = JSONTestRNG(seed: UInt64(maxChunk))
                do {
                    _ = try streamValue(Array(c.text.utf8), generator: &generator, maxChunk: maxChunk, limits: .init(maxTokenBytes: 13))
                    Issue.record("accepted \(c.text)")
                } catch {
                    #expect(error.kind == c.kind && error.offset == c.offset, "\(c.text), chunks ≤ \(maxChunk): \(error)")
                }
            }
        }
    }

    @Test func keptBytesStayReadableAcrossAppends() throws {
        var tokenizer = JSONStreamTokenizer()
        tokenizer.append(Array(#"{"a": {"b": 1"#.utf8))
        var start: Int?
        while case .token(let token) = try tokenizer.next() {
            if token.kind == .beginObject && token.depth == 1 { start = token.start; tokenizer.keep(from: token.start) }
        }
        tokenizer.append(Array(#", "c": 2}}"#.utf8))
        var end: Int?
        while case .token(let token) = try tokenizer.next() {
            if token.kind == .endObject && token.depth == 1 { end = token.end }
        }
        let s = try #require(start), e = try #require(end)
        let text = tokenizer.withBytes(from: s, to: e) { $0.map { String(decoding: $0, as: UTF8.self) } }
        #expect(text == #"{"b": 1, "c": 2}"#)
        tokenizer.keep(from: nil)
        tokenizer.append([])
        #expect(tokenizer.withBytes(from: s, to: e) { $0 == nil }, "released bytes are dropped")
        tokenizer.finish()
        #expect(try tokenizer.next() == .end)
    }
}
