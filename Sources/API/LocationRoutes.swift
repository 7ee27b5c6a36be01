import HTTPServer
import JSONCore
import LocationFormats
import Timestamps
import Tracking

/// `POST|GET|DELETE /v1/devices/{id}/locations`.
struct LocationRoutes {
    let locations: LocationService
    let rules: PartitionRules
    let access: RouteAccess
    /// 10,000 fixes of a few hundred bytes each fit.
    static let maxBatchBodyBytes = 8 << 20

    var routes: [Route] {
        let locations = self.locations
        let rules = self.rules
        let group = RouteGroup(access: access)
        return [
            // The device's own token only (PartitionRules.requireWrite names the partition),
            // checked before the body is read.
            group.completing("POST", "/v1/devices/{id}/locations", .optional, maxBodyBytes: Self.maxBatchBodyBytes, admits: { request, context in
                try rules.requireWrite(context.credential, .device(request.id()))
            }) { request, context, reply in
                let deviceID: DeviceID = request.id()
                try rules.requireWrite(context.credential, .device(deviceID))
                let batch: FixBatch
                do {
                    batch = try NativeFormat.parse(try JSONBody.parse(request), now: Timestamp.nowMilliseconds(), rules: locations.rules)
                    if batch.isSingle, let rejection = batch.rejected.first {
                        throw TrackingError.invalid(rejection.error.message, code: rejection.error.code)
                    }
                } catch {
                    // The answer stays the precise 4xx; the device was seen all the same.
                    try locations.ingest([], deviceID: deviceID, credential: context.credential) { _ in reply(.failure(error)) }
                    return
                }
                let rejected = batch.rejected
                try locations.ingest(batch.fixes.map(\.fix), deviceID: deviceID, credential: context.credential) { result in
                    reply(result.map { .json(Self.counts($0, rejected: rejected)) })
                }
            },
            group.inline("GET", "/v1/devices/{id}/locations", .reader(.device(parameter: "id"))) { request, context in
                let page = try locations.history(
                    deviceID: request.id(), credential: context.credential,
                    from: try QueryTime.parse(request.query("from"), name: "from"),
                    to: try QueryTime.parse(request.query("to"), name: "to"),
                    cursor: try request.query("cursor").flatMap { $0.isEmpty ? nil : try CursorCoding.decode($0) },
                    limit: try QueryNumber.int(request.query("limit"), name: "limit"))
                return .json(["locations": .array(page.fixes.map(Self.document)),
                              "nextCursor": page.next.map { .string(CursorCoding.encode($0)) } ?? .null])
            },
            group.deferred("DELETE", "/v1/devices/{id}/locations", .user) { request, context in
                guard let before = try QueryTime.parse(request.query("before"), name: "before") else {
                    throw TrackingError.missingField("before")
                }
                let deleted = try await locations.deleteHistory(deviceID: request.id(), before: before, ownerID: try context.userID)
                return .json(["deleted": .number(JSONNumber(deleted))])
            },
        ]
    }

    static func counts(_ outcome: IngestOutcome, rejected: [(index: Int, error: FixError)]) -> JSONValue {
        ["accepted": .number(JSONNumber(outcome.accepted)), "duplicates": .number(JSONNumber(outcome.duplicates)),
         "rejected": .array(rejected.map { r in
             ["index": .number(JSONNumber(r.index)),
              "error": ["code": .string(r.error.code.rawValue), "message": .string(r.error.message)]]
         })]
    }

    static func document(_ stored: StoredFix) -> JSONValue {
        let f = stored.fix
        var object: JSONObject = [:]
        if let id = f.clientID { object["id"] = .string(id) }
        object["location"] = Documents.position(f.longitude, f.latitude)
        object["timestamp"] = .string(Time.format(f.timestamp))
        if let v = f.accuracy { object["accuracy"] = .number(JSONNumber(v)) }
        if let v = f.altitude { object["altitude"] = .number(JSONNumber(v)) }
        if let v = f.speed { object["speed"] = .number(JSONNumber(v)) }
        if let v = f.heading { object["heading"] = .number(JSONNumber(v)) }
        if let v = f.battery { object["battery"] = .number(JSONNumber(v)) }
        return .object(object)
    }
}
