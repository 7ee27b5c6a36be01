// fuzz-modules: JSONCore
// fuzz-support: FuzzCheck
// fuzz-max-len: 8192
//
// The strict JSON parser (Sources/JSONCore). Invariants:
// - an accepted document is valid UTF-8, and parse → serialize → parse gives the same value and
//   the same bytes again; every number is finite and its exact integer, when present, converts
//   to its double;
// - a rejection carries a position inside the input and a message;
// - limits only ever refuse: a parse with tight limits accepts exactly the documents whose
//   depth and string lengths fit them, with the same value.
import JSONCore

/// Limits small enough that the fuzzer reaches them often.
let tightLimits = JSONParser.Limits(maxDepth: 6, maxStringLength: 12, maxInputSize: 4096)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    let value: JSONValue
    do {
        value = try JSONParser.parse(input)
    } catch {
        checkRejection(error, input: input)
        do {
            _ = try JSONParser.parse(input, limits: tightLimits)
            require(false, "tight limits accepted a document the default limits reject: \(shown(input))")
        } catch {
            checkRejection(error, input: input)
        }
        return 0
    }

    require(String(validating: input, as: UTF8.self) != nil, "accepted invalid UTF-8: \(shown(input))")
    let shape = Shape(value)
    require(shape.depth <= JSONParser.Limits.default.maxDepth, "depth \(shape.depth) beyond the limit")
    require(shape.numbersAreConsistent, "a number is not finite or its int64 and double disagree: \(shown(input))")

    let output = value.serialized()
    do {
        let reparsed = try JSONParser.parse(output)
        require(reparsed == value, "round trip changed the value: \(shown(input)) → \(shown(output))")
        require(reparsed.serialized() == output, "serialization is not stable: \(shown(output))")
    } catch {
        require(false, "the serialization of an accepted document does not parse (\(error)): \(shown(output))")
    }

    let fits = shape.depth <= tightLimits.maxDepth && shape.longestString <= (tightLimits.maxStringLength ?? .max)
        && input.count <= (tightLimits.maxInputSize ?? .max)
    do {
        let limited = try JSONParser.parse(input, limits: tightLimits)
        require(fits, "tight limits accepted depth \(shape.depth), string \(shape.longestString) bytes")
        require(limited == value, "tight limits changed the value")
    } catch {
        checkRejection(error, input: input)
        require(!fits, "tight limits rejected a document within them (\(error)): \(shown(input))")
        require(error.kind == .limitExceeded, "tight limits gave \(error) for a valid document")
    }
    return 0
}

/// A rejection names a position inside the input and says why.
func checkRejection(_ error: JSONParseError, input: [UInt8]) {
    require(error.offset >= 0 && error.offset <= input.count, "offset \(error.offset) outside the input (\(input.count) bytes)")
    require(error.line >= 1 && error.column >= 1, "line \(error.line) column \(error.column)")
    require(!error.reason.isEmpty && !error.description.isEmpty, "an error without a message")
}

/// Nesting depth, longest string or key in UTF-8 bytes, and whether every number is sound.
struct Shape {
    var depth = 0
    var longestString = 0
    var numbersAreConsistent = true

    init(_ value: JSONValue) {
        visit(value, level: 0)
    }

    private mutating func visit(_ value: JSONValue, level: Int) {
        switch value {
        case .null, .bool:
            break
        case .number(let number):
            let sound = number.double.isFinite && (number.int64.map { Double($0) == number.double } ?? true)
            numbersAreConsistent = numbersAreConsistent && sound
        case .string(let text):
            longestString = max(longestString, text.utf8.count)
        case .array(let elements):
            depth = max(depth, level + 1)
            for element in elements { visit(element, level: level + 1) }
        case .object(let object):
            depth = max(depth, level + 1)
            for (key, member) in object {
                longestString = max(longestString, key.utf8.count)
                visit(member, level: level + 1)
            }
        }
    }
}
