// fuzz-modules: LocationFormats JSONCore Timestamps
// fuzz-support: FuzzCheck FixInvariants
// fuzz-max-len: 16384
//
// The server's own fix and batch bodies (NativeFormat, FixValidation). Invariants: besides the
// shared fix and batch rules (FixInvariants), an accepted fix written back in the native format
// is accepted again as the same fix, so validation and our own documents agree; and the
// store's reading of a client id (ImportPointID) never traps, and takes an id for an import's
// derived id of its fix only when an import of that fix would write exactly that id.
import JSONCore
import LocationFormats
import Timestamps

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNative(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let body = jsonBody(input) else { return 0 }
    let batch: FixBatch
    do {
        batch = try NativeFormat.parse(body, now: fuzzNow)
    } catch {
        checkError(error, context: shown(input))
        return 0
    }
    let submitted = body["locations"]?.arrayValue?.count ?? 1
    checkBatch(batch, submitted: submitted, context: shown(input))
    guard !batch.fixes.isEmpty else { return 0 }
    for entry in batch.fixes {
        if let id = entry.fix.clientID { checkImportPointID(id, entry.fix) }
    }

    let written: JSONValue = ["locations": .array(batch.fixes.map { nativeDocument($0.fix) })]
    do {
        let again = try NativeFormat.parse(written, now: fuzzNow)
        require(again.rejected.isEmpty, "an accepted fix written back is rejected: \(again.rejected[0].error) for \(written)")
        for (original, reparsed) in zip(batch.fixes, again.fixes) {
            require(original.fix == reparsed.fix, "\(original.fix) came back as \(reparsed.fix)")
        }
    } catch {
        require(false, "accepted fixes written back are not a valid batch: \(error)")
    }
    return 0
}

/// `ImportPointID` on an id a client sent: derived only if an import would have written it.
func checkImportPointID(_ id: String, _ fix: Fix) {
    let named = ImportPointID.timestamp(in: id)
    let naming = ImportPointID.naming(of: id, for: fix)
    require((naming == nil) == (named == nil), "\(id): naming \(String(describing: naming)) but timestamp \(String(describing: named))")
    if case .otherPoint(let timestamp)? = naming { require(timestamp == named, "\(id) names \(timestamp) and \(String(describing: named))") }
    guard ImportPointID.isDerived(id, for: fix) else { return }
    require(named == fix.timestamp, "\(id) is derived for a fix at \(fix.timestamp) but names \(String(describing: named))")
    require(ImportFormat.allCases.contains { ImportPointID.make(for: fix, format: $0) == id },
            "\(id) is taken as derived for \(fix), but no import writes it")
}

/// A fix as the native format writes it (what the history API returns).
func nativeDocument(_ fix: Fix) -> JSONValue {
    var object: JSONObject = ["location": [.number(JSONNumber(fix.longitude)), .number(JSONNumber(fix.latitude))]]
    if fix.timestampWasGiven { object["timestamp"] = .string(Timestamp.rfc3339(millisecondsSince1970: fix.timestamp)) }
    if let v = fix.accuracy { object["accuracy"] = .number(JSONNumber(v)) }
    if let v = fix.altitude { object["altitude"] = .number(JSONNumber(v)) }
    if let v = fix.speed { object["speed"] = .number(JSONNumber(v)) }
    if let v = fix.heading { object["heading"] = .number(JSONNumber(v)) }
    if let v = fix.battery { object["battery"] = .number(JSONNumber(v)) }
    if let id = fix.clientID { object["id"] = .string(id) }
    return .object(object)
}
