// fuzz-modules: LocationFormats JSONCore
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 4096
//
// OwnTracks HTTP-mode messages (OwnTracksFormat). Invariants: the shared fix rules; only
// `_type: "location"` yields a fix, and never with a client id (resends are recognised by time).
import JSONCore
import LocationFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOwnTracks(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let body = jsonBody(input) else { return 0 }
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
