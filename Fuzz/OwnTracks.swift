// fuzz-modules: LocationFormats JSONCore
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 4096
//
// OwnTracks HTTP-mode messages (OwnTracksFormat). Invariants: the shared fix rules; only
// `_type: "location"` yields a fix, and never with a client id (resends are recognised by time);
// `read` (the ingest's reader) never fails, agrees with `parse` and keeps its payload sound.
import JSONCore
import LocationFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOwnTracks(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let body = jsonBody(input) else { return 0 }
    checkRead(body, input: input)
    do {
        guard let fix = try OwnTracksFormat.parse(body, now: fuzzNow) else {
            require(body["_type"]?.stringValue != "location", "a location message produced no fix: \(shown(input))")
            return 0
        }
        require(body["_type"]?.stringValue == "location", "a \(body["_type"]?.stringValue ?? "?") message produced a fix")
        require(fix.clientID == nil && fix.timestampWasGiven, "OwnTracks fix with a client id or without its time")
        checkFix(fix, context: shown(input))
    } catch {
        checkError(error, context: shown(input))
    }
    return 0
}

/// `read` agrees with `parse`: the same fix, or the same error as the one unusable message; only
/// `encrypted` with a string `data` is handed back to be opened.
func checkRead(_ body: JSONValue, input: [UInt8]) {
    let message = OwnTracksFormat.read(body, now: fuzzNow)
    guard case .plain(let payload) = message else {
        require(body["_type"]?.stringValue == "encrypted" && body["data"]?.stringValue != nil, "handed back to open: \(shown(input))")
        return
    }
    checkPayload(payload, context: shown(input))
    require(payload.fixes.count + payload.unusable.count + payload.transitions.count <= 1, "one message, several outcomes: \(shown(input))")
    do {
        if let fix = try OwnTracksFormat.parse(body, now: fuzzNow) {
            require(payload.fixes == [fix], "read and parse disagree: \(shown(input))")
        }
    } catch {
        require(payload.unusable.map(\.error) == [error], "read and parse disagree on the error: \(shown(input))")
    }
}
