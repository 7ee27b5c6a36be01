// fuzz-modules: LocationFormats JSONCore
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 4096
//
// The OsmAnd protocol (OsmAndFormat): the first input byte picks the entry point — a query
// string (decoded like a form), a form body, or the JSON form. Invariants: the shared fix rules
// and a non-empty device token; form decoding round-trips (pairs percent-encoded again decode
// to the same pairs); the order of query parameters does not change the outcome; the ingest's
// readers (`read`, `readJSON`) never fail, agree with the parsers and never put the token in a sample.
import JSONCore
import LocationFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOsmAnd(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    switch selector % 3 {
    case 0: query(input)
    case 1: form(input)
    default: json(input)
    }
    return 0
}

func query(_ input: [UInt8]) {
    let items: [(name: String, value: String)]
    do {
        items = try OsmAndFormat.decodeForm(input)
    } catch {
        checkError(error, context: shown(input))
        return
    }
    checkRead(items, input: input)
    let forward = outcome(items), backward = outcome(items.reversed())
    switch (forward, backward) {
    case (.success(let a), .success(let b)):
        require(a.deviceToken == b.deviceToken && a.fix == b.fix, "parameter order changed the fix: \(shown(input))")
    case (.failure, .failure):
        break
    default:
        require(false, "parameter order decides acceptance: \(shown(input))")
    }
}

func outcome(_ items: [(name: String, value: String)]) -> Result<(deviceToken: String, fix: Fix), FixError> {
    do {
        let parsed = try OsmAndFormat.parseQuery(items, now: fuzzNow)
        check(parsed, input: items.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        return .success(parsed)
    } catch {
        checkError(error, context: "\(items)")
        return .failure(error)
    }
}

func form(_ input: [UInt8]) {
    do {
        let pairs = try OsmAndFormat.decodeForm(input)
        let encoded = pairs.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
        let again = try OsmAndFormat.decodeForm(Array(encoded.utf8))
        require(again.map(\.name) == pairs.map(\.name) && again.map(\.value) == pairs.map(\.value),
                "form decoding does not round-trip: \(shown(input)) → \(encoded)")
    } catch {
        checkError(error, context: shown(input))
    }
    do {
        check(try OsmAndFormat.parseForm(input, now: fuzzNow), input: shown(input))
    } catch {
        checkError(error, context: shown(input))
    }
}

func json(_ input: [UInt8]) {
    guard let body = jsonBody(input) else { return }
    if let token = OsmAndFormat.deviceToken(json: body) {
        checkPayload(OsmAndFormat.readJSON(body, token: token, now: fuzzNow), context: shown(input))
    }
    do {
        check(try OsmAndFormat.parseJSON(body, now: fuzzNow), input: shown(input))
    } catch {
        checkError(error, context: shown(input))
    }
}

func check(_ parsed: (deviceToken: String, fix: Fix), input: @autoclosure () -> String) {
    require(!parsed.deviceToken.isEmpty, "an empty device token was accepted: \(input())")
    checkFix(parsed.fix, context: input())
}

/// Every byte but unreserved ASCII as %XX.
func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF".utf8)
            out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
        }
    }
    return out
}

/// `read` of query parameters: a fix exactly when `parseQuery` gives one (with a position), the
/// same error otherwise, and no sample holds a token parameter.
func checkRead(_ items: [(name: String, value: String)], input: [UInt8]) {
    let payload = OsmAndFormat.read(items, now: fuzzNow)
    checkPayload(payload, context: shown(input))
    for unusable in payload.unusable {
        require(!unusable.sample.split(separator: "&").contains { $0.hasPrefix("id=") || $0.hasPrefix("deviceid=") },
                "a sample holds the token: \(shown(input))")
    }
    guard items.contains(where: { ["lat", "lon", "location"].contains($0.name) && !$0.value.isEmpty }) else {
        require(payload.fixes.isEmpty && payload.unusable.isEmpty, "a heartbeat became a fix or a rejection: \(shown(input))")
        return
    }
    switch outcome(items) {
    case .success(let parsed): require(payload.fixes == [parsed.fix], "read and parse disagree: \(shown(input))")
    case .failure(let error): require(payload.unusable.map(\.error) == [error], "read and parse disagree on the error: \(shown(input))")
    }
}
