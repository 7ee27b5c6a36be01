// fuzz-modules: LocationFormats JSONCore
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 16384
//
// Overland batches of GeoJSON Point features (OverlandFormat). Invariants: the shared batch and
// fix rules, every feature accounted for, fixes always timestamped and without client ids.
import JSONCore
import LocationFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOverland(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let body = jsonBody(input) else { return 0 }
    do {
        let batch = try OverlandFormat.parse(body, now: fuzzNow)
        require(!batch.isSingle, "an Overland body is always a batch")
        checkBatch(batch, submitted: body["locations"]?.arrayValue?.count, context: shown(input))
        for (_, fix) in batch.fixes {
            require(fix.clientID == nil && fix.timestampWasGiven, "Overland fix with a client id or without its time")
        }
    } catch {
        checkError(error, context: shown(input))
    }
    return 0
}
