// fuzz-modules: LocationFormats JSONCore
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 16384
//
// Overland batches of GeoJSON Point features (OverlandFormat). Invariants: the shared batch and
// fix rules, every feature accounted for, fixes always timestamped and without client ids;
// `read` (the ingest's reader) never fails and keeps every feature: stored or unusable.
import JSONCore
import LocationFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOverland(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let body = jsonBody(input) else { return 0 }
    let payload = OverlandFormat.read(body, now: fuzzNow)
    checkPayload(payload, context: shown(input))
    do {
        let batch = try OverlandFormat.parse(body, now: fuzzNow)
        require(payload.fixes == batch.fixes.map(\.fix) && payload.unusable.map(\.error) == batch.rejected.map(\.error),
                "read and parse disagree: \(shown(input))")
        require(!batch.isSingle, "an Overland body is always a batch")
        checkBatch(batch, submitted: body["locations"]?.arrayValue?.count, context: shown(input))
        for (_, fix) in batch.fixes {
            require(fix.clientID == nil && fix.timestampWasGiven, "Overland fix with a client id or without its time")
        }
    } catch {
        checkError(error, context: shown(input))
        require(payload.fixes.isEmpty && payload.unusable.map(\.error) == [error], "read and parse disagree on the body: \(shown(input))")
    }
    return 0
}
