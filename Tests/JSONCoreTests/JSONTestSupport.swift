import JSONCore
import TestRandom

/// Deterministic PRNG (SplitMix64) so fuzz tests are reproducible.
typealias JSONTestRNG = TestRandom.SplitMix64

func jsonBytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

func parseJSON(_ text: String, limits: JSONParser.Limits = .default) throws(JSONParseError) -> JSONValue {
    try JSONParser.parse(jsonBytes(text), limits: limits)
}

/// The error thrown for `input`, or nil if it parses.
func jsonParseError(_ input: [UInt8], limits: JSONParser.Limits = .default) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(input, limits: limits)
        return nil
    } catch {
        return error
    }
}

func serializedJSONText(_ value: JSONValue) -> String {
    value.serializedString()
}

/// Writes one value with a fresh writer and returns the text.
func writtenJSON(_ body: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter()
    body(&writer)
    return String(decoding: writer.bytes, as: UTF8.self)
}
