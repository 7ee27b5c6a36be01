// fuzz-modules: JSONCore TestRandom
// fuzz-support: FuzzCheck Chunking
// fuzz-max-len: 8192
//
// The streaming JSON tokenizer (JSONCore's JSONStreamTokenizer), driven the way the history
// import drives it. The first input byte picks the limits (the defaults, or depth 1–8 and
// tokens of 1–61 bytes), the chunk sizes and which containers are skipped; the rest is the
// document. Invariants:
// - the tokens, and the error if there is one (kind and offset), do not depend on how the input
//   is chunked; skipping a container (`skipContainer`) ends at the closing token reading through
//   it would reach, or at the same error;
// - every token lies in the input and its bytes are its text (a bracket, a quoted string whose
//   `hasEscapes` says whether it holds a backslash, a number, a literal), readable when it is
//   returned; its depth is the tokenizer's; bytes kept with `keep(from:)` are the input's bytes;
// - the window holds at most the last chunk, one unfinished token and what is kept;
// - with the default limits it agrees with `JSONParser`: a document the parser accepts streams
//   to the same value, and one the tokenizer rejects the parser rejects.
import JSONCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, document) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let defaultLimits = selector & 0x80 == 0
    let limits = defaultLimits
        ? JSONStreamTokenizer.Limits()
        : JSONStreamTokenizer.Limits(maxDepth: Int(selector & 7) + 1, maxTokenBytes: Int(selector >> 3 & 0x0F) * 4 + 1)
    let seed = UInt64(selector) << 32 | UInt64(document.count)

    var whole = StreamFeed(document, limits: limits, pieces: document.isEmpty ? [] : [document[...]])
    var builder = ValueBuilder()
    let reference = whole.run(skipping: { _ in false }) { tokenizer, token in builder.add(token, from: tokenizer) }

    for maxChunk in [1, 7, 64] {
        var feed = StreamFeed(document, limits: limits, pieces: chunks(of: document, seed: seed &+ UInt64(maxChunk), maxChunk: maxChunk))
        let run = feed.run(skipping: { _ in false })
        require(run == reference, "chunks of up to \(maxChunk) bytes give \(run.summary) instead of \(reference.summary): \(shown(document))")
    }

    var skipping = StreamFeed(document, limits: limits, pieces: chunks(of: document, seed: ~seed, maxChunk: 5))
    let skipped = skipping.run(skipping: { token in (token.start &* 7 &+ Int(selector)) % 3 == 0 })
    let expected = reference.skipping { token in (token.start &* 7 &+ Int(selector)) % 3 == 0 }
    require(skipped == expected, "skipping gives \(skipped.summary) instead of \(expected.summary): \(shown(document))")

    guard defaultLimits else { return 0 }
    // The tokenizer may accept what the parser rejects: it leaves UTF-8, duplicate keys, lone
    // surrogate escapes and numbers beyond Double's range to whoever decodes the values.
    if let parsed = try? JSONParser.parse(document) {
        require(reference.error == nil, "the parser accepts what the tokenizer rejects (\(reference.summary)): \(shown(document))")
        require(builder.result == parsed, "streamed \(String(describing: builder.result)), parsed \(parsed): \(shown(document))")
    }
    return 0
}

/// What a run of the tokenizer produced: its tokens and the error that ended it, if any.
struct StreamRun: Equatable {
    var tokens: [JSONStreamToken] = []
    var error: JSONStreamError?

    var summary: String {
        "\(tokens.count) tokens, " + (error.map { "error \($0.kind) at \($0.offset)" } ?? "no error")
    }

    /// This run as a skipping run would see it: the tokens inside each container `skip` picks
    /// left out (its closing token kept); a container that never closes ends the run at the error.
    func skipping(_ skip: (JSONStreamToken) -> Bool) -> StreamRun {
        var out = StreamRun()
        var i = 0
        while i < tokens.count {
            let token = tokens[i]
            out.tokens.append(token)
            i += 1
            guard token.kind == .beginObject || token.kind == .beginArray, skip(token) else { continue }
            guard let close = tokens[i...].firstIndex(where: { ($0.kind == .endObject || $0.kind == .endArray) && $0.depth == token.depth }) else {
                out.error = error
                return out
            }
            out.tokens.append(tokens[close])
            i = close + 1
        }
        out.error = error
        return out
    }
}

/// A tokenizer fed `pieces` of `document` on demand, checking each token and the window.
struct StreamFeed {
    let document: [UInt8]
    let pieces: [ArraySlice<UInt8>]
    var tokenizer: JSONStreamTokenizer
    var next = 0
    /// The offset `keep(from:)` was last given, while it holds.
    var keptFrom: Int?

    init(_ document: [UInt8], limits: JSONStreamTokenizer.Limits, pieces: [ArraySlice<UInt8>]) {
        self.document = document
        self.pieces = pieces
        tokenizer = JSONStreamTokenizer(limits: limits)
    }

    /// Reads to the end or the first error. Containers `skip` picks are skipped with
    /// `skipContainer`, their bytes kept meanwhile and compared with the input.
    mutating func run(skipping skip: (JSONStreamToken) -> Bool,
                      onToken: (JSONStreamTokenizer, JSONStreamToken) -> Void = { _, _ in }) -> StreamRun {
        var run = StreamRun()
        do throws(JSONStreamError) {
            while let token = try nextToken() {
                check(token)
                onToken(tokenizer, token)
                run.tokens.append(token)
                guard token.kind == .beginObject || token.kind == .beginArray, skip(token) else { continue }
                tokenizer.keep(from: token.start)
                keptFrom = token.start
                let close = try skipContainer(depth: token.depth)
                check(close)
                let kept = tokenizer.withBytes(from: token.start, to: close.end) { $0.map { Array($0) } }
                require(kept.map { $0[...] == document[token.start..<close.end] } ?? false,
                        "kept bytes \(token.start)..<\(close.end) are not the input's")
                tokenizer.keep(from: nil)
                keptFrom = nil
                run.tokens.append(close)
            }
        } catch {
            require(error.offset >= 0 && error.offset <= document.count && !error.description.isEmpty,
                    "error \(error) outside the input of \(document.count) bytes")
            run.error = error
        }
        return run
    }

    mutating func nextToken() throws(JSONStreamError) -> JSONStreamToken? {
        while true {
            switch try tokenizer.next() {
            case .token(let token): return token
            case .end: return nil
            case .needInput: feed()
            }
        }
    }

    mutating func skipContainer(depth: Int) throws(JSONStreamError) -> JSONStreamToken {
        while true {
            if let close = try tokenizer.skipContainer(depth: depth) { return close }
            require(next <= pieces.count, "skipContainer stopped inside a container after the input ended")
            feed()
        }
    }

    /// Appends the next piece (or finishes) and checks the window's bound.
    mutating func feed() {
        guard next < pieces.count else {
            tokenizer.finish()
            next += 1
            return
        }
        let piece = pieces[next]
        next += 1
        let position = tokenizer.position
        tokenizer.append(Array(piece))
        // Left before the piece: the unfinished token (at most a string or number of the
        // limit's length with its quote, or a literal) and whatever is kept.
        let unfinished = tokenizer.limits.maxTokenBytes + 5
        let kept = keptFrom.map { max(0, position - $0) } ?? 0
        require(tokenizer.windowEnd - tokenizer.windowStart <= piece.count + unfinished + kept,
                "window \(tokenizer.windowStart)..<\(tokenizer.windowEnd) after a piece of \(piece.count) at \(position)")
        require(keptFrom.map { tokenizer.windowStart <= $0 } ?? true, "kept bytes from \(keptFrom ?? 0) dropped")
        require(tokenizer.windowEnd == piece.endIndex, "window ends at \(tokenizer.windowEnd), input at \(piece.endIndex)")
    }

    /// The token's bytes are its text, in the input, readable now; its depth is the tokenizer's.
    func check(_ token: JSONStreamToken) {
        require(token.start >= 0 && token.start <= token.end && token.end <= document.count,
                "token \(token) outside the input of \(document.count) bytes")
        let text = document[token.start..<token.end]
        let readable = tokenizer.withBytes(from: token.start, to: token.end) { $0.map { Array($0) } }
        require(readable.map { $0[...] == text } ?? false, "token \(token) not readable as the input's bytes")
        require(token.depth <= tokenizer.limits.maxDepth, "token \(token) deeper than the limit")
        func byte(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }
        switch token.kind {
        case .beginObject, .beginArray:
            require(text.elementsEqual([byte(token.kind == .beginObject ? "{" : "[")]) && tokenizer.depth == token.depth + 1,
                    "opening token \(token) at depth \(tokenizer.depth)")
        case .endObject, .endArray:
            require(text.elementsEqual([byte(token.kind == .endObject ? "}" : "]")]) && tokenizer.depth == token.depth,
                    "closing token \(token) at depth \(tokenizer.depth)")
        case .key, .string:
            require(token.start >= 1 && document[token.start - 1] == byte("\"") && token.end < document.count
                    && document[token.end] == byte("\"") && text.count <= tokenizer.limits.maxTokenBytes,
                    "string token \(token) is not the text between two quotes")
            require(token.hasEscapes == text.contains(byte("\\")), "string token \(token) hasEscapes is wrong")
            require(tokenizer.depth == token.depth, "string token \(token) at depth \(tokenizer.depth)")
        case .number:
            require(!text.isEmpty && text.count <= tokenizer.limits.maxTokenBytes
                    && text.allSatisfy { ($0 >= 48 && $0 <= 57) || "+-.eE".utf8.contains($0) },
                    "number token \(token) is \(shown(text))")
            require(tokenizer.depth == token.depth, "number token \(token) at depth \(tokenizer.depth)")
        case .bool:
            require(text.elementsEqual((token.boolValue ? "true" : "false").utf8), "bool token \(token) is \(shown(text))")
        case .null:
            require(text.elementsEqual("null".utf8), "null token \(token) is \(shown(text))")
        }
    }
}

/// Rebuilds the document's value from tokens, decoding strings and numbers through the
/// tokenizer while their bytes are readable (for comparison with `JSONParser`).
struct ValueBuilder {
    enum Frame { case array([JSONValue]), object(JSONObject, key: String?) }
    var stack: [Frame] = []
    var result: JSONValue?

    mutating func add(_ token: JSONStreamToken, from tokenizer: JSONStreamTokenizer) {
        switch token.kind {
        case .beginArray: stack.append(.array([]))
        case .beginObject: stack.append(.object(JSONObject(), key: nil))
        case .endArray, .endObject:
            switch stack.popLast() {
            case .array(let items)?: value(.array(items))
            case .object(let object, _)?: value(.object(object))
            case nil: require(false, "a closing token without an open container")
            }
        case .key:
            guard case .object(let object, nil)? = stack.popLast() else {
                require(false, "a key outside an object or after another key")
                return
            }
            // A key that does not decode (invalid UTF-8, a lone surrogate): the parser rejects it.
            stack.append(.object(object, key: tokenizer.string(token) ?? "\u{FFFD}undecodable"))
        case .string: value(tokenizer.string(token).map(JSONValue.string) ?? .string("\u{FFFD}undecodable"))
        case .number: value(tokenizer.number(token).map(JSONValue.number) ?? .null)
        case .bool: value(.bool(token.boolValue))
        case .null: value(.null)
        }
    }

    mutating func value(_ value: JSONValue) {
        switch stack.popLast() {
        case .array(var items)?:
            items.append(value)
            stack.append(.array(items))
        case .object(var object, let key?)?:
            object[key] = value
            stack.append(.object(object, key: nil))
        case .object(_, nil)?:
            require(false, "a value without a key in an object")
        case nil:
            require(result == nil, "a second root value")
            result = value
        }
    }
}
