import JSONCore

/// Deterministic PRNG (SplitMix64) so fuzz tests are reproducible.
struct JSONTestRNG: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
