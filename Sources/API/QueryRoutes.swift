import GeoKit
import GeoQuery
import HTTPServer
import JSONCore
import Timestamps
import Tracking

/// `POST /v1/groups/{id}/query` (MongoDB operator syntax) and `GET /v1/groups/{id}/near`.
struct QueryRoutes {
    let queries: GeoQueryService
    let gate: AdmissionGate
    /// `Services.Configuration.queryInlineBudget`.
    let inlineBudget: WorkBudget?
    let access: RouteAccess

    var routes: [Route] {
        let queries = self.queries
        let group = RouteGroup(access: access)
        let member = Caller.reader(.group(parameter: "id"))
        let gate = self.gate
        let inline = inlineBudget
        return [
            group.adaptive("POST", "/v1/groups/{id}/query", member, maxBodyBytes: 4 << 20, inlineBudget: inline) { request, context, budget in
                let body = try JSONBody(request)
                guard let filter = body["filter"]?.objectValue else { throw TrackingError.missingField("filter") }
                guard filter.count == 1, let location = filter["location"] else {
                    throw TrackingError.invalid("filter must be {\"location\": <geo operator>}", code: .invalidFilter)
                }
                // A polygon's validation and covering are work the budget does not count, and a
                // query that then needs the task would repeat them: polygons go there at once.
                if budget != nil && !GeoFilter.coversCheaply(location) { throw WorkBudget.Exceeded() }
                let query = GeoQueryRequest(filter: try GeoFilter.parse(location),
                                            scope: try Self.scope(body["scope"]?.stringValue ?? (body["scope"] == nil ? "latest" : ""),
                                                                  from: try Self.time(body["from"], "from"), to: try Self.time(body["to"], "to")),
                                            limit: try Self.limit(body["limit"]), explain: try body.optionalBool("explain") ?? false)
                return Self.response(try gate.run { try Self.answer(queries, request.id(), context.credential, query, budget: budget) })
            },
            group.adaptive("GET", "/v1/groups/{id}/near", member, inlineBudget: inline) { request, context, budget in
                guard let lon = try QueryNumber.double(request.query("lon"), name: "lon"),
                      let lat = try QueryNumber.double(request.query("lat"), name: "lat") else {
                    throw TrackingError.invalid("lon and lat are required", code: .missingField)
                }
                var near: JSONObject = ["$geometry": ["type": "Point", "coordinates": .array([.number(JSONNumber(lon)), .number(JSONNumber(lat))])]]
                if let v = try QueryNumber.double(request.query("minDistance"), name: "minDistance") { near["$minDistance"] = .number(JSONNumber(v)) }
                if let v = try QueryNumber.double(request.query("maxDistance"), name: "maxDistance") { near["$maxDistance"] = .number(JSONNumber(v)) }
                let query = GeoQueryRequest(
                    filter: try GeoFilter.parse(["$near": .object(near)]),
                    scope: try Self.scope(request.query("scope") ?? "latest",
                                          from: try QueryTime.parse(request.query("from"), name: "from"),
                                          to: try QueryTime.parse(request.query("to"), name: "to")),
                    limit: try QueryNumber.int(request.query("limit"), name: "limit") ?? GeoQueryRequest.defaultLimit,
                    explain: request.query("explain") == "true")
                return Self.response(try gate.run { try Self.answer(queries, request.id(), context.credential, query, budget: budget) })
            },
        ]
    }

    /// Index rows and seeks a query may use on the server's thread (about a millisecond there at
    /// most); a query that needs more runs again from a task. Most radius and `$near` queries of
    /// a few dozen hits fit, so they skip the hand-off to a task and back.
    static let inlineBudget = WorkBudget(units: 1_000)

    static func response(_ json: [UInt8]) -> Response {
        Response(status: 200, contentType: "application/json; charset=utf-8", bytes: json)
    }

    /// The results document, written straight into bytes (up to 10,000 results: no value tree,
    /// no string per timestamp, no lookup per result).
    static func answer(_ queries: GeoQueryService, _ groupID: GroupID, _ credential: Credential, _ query: GeoQueryRequest,
                       budget: WorkBudget?) throws -> [UInt8] {
        let (results, explain) = try queries.query(groupID: groupID, credential: credential, query, budget: budget)
        var writer = JSONWriter(capacity: 64 + results.count * 192)
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for r in results {
            writer.beginObject()
            writer.key(ascii: "deviceId"); writer.string(r.deviceID.rawValue)
            writer.key(ascii: "userId"); writer.string(r.userID.rawValue)
            writer.key(ascii: "location")
            writer.beginArray(); writer.number(r.longitude); writer.number(r.latitude); writer.endArray()
            writer.key(ascii: "timestamp")
            writer.rawValue { bytes in
                bytes.append(UInt8(ascii: "\""))
                Timestamp.appendRFC3339(millisecondsSince1970: r.timestamp, to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            }
            if let d = r.distance { writer.key(ascii: "distance"); writer.number(d) }
            writer.endObject()
        }
        writer.endArray()
        if query.explain {
            writer.key("explain")
            writer.write(["scope": .string(explain.scope), "cellsInCovering": .number(JSONNumber(explain.cellsInCovering)),
                          "ranges": .number(JSONNumber(explain.ranges)), "keysExamined": .number(JSONNumber(explain.keysExamined)),
                          "docsExamined": .number(JSONNumber(explain.docsExamined)), "cellsProbed": .number(JSONNumber(explain.cellsProbed)),
                          "nReturned": .number(JSONNumber(results.count)),
                          "covering": .array(explain.coveringTokens.map { .string($0) })])
        }
        writer.endObject()
        return writer.bytes
    }

    static func scope(_ name: String, from: Int64?, to: Int64?) throws -> QueryScope {
        switch name {
        case "latest":
            if from != nil || to != nil { throw TrackingError.invalid("from and to apply to scope \"history\" only", code: .invalidScope) }
            return .latest
        case "history": return .history(from: from, to: to)
        default: throw TrackingError.invalid("scope must be \"latest\" or \"history\"", code: .invalidScope)
        }
    }

    static func time(_ value: JSONValue?, _ name: String) throws -> Int64? {
        guard let value, !value.isNull else { return nil }
        if let text = value.stringValue { return try QueryTime.parse(text, name: name) }
        if let ms = value.int64Value { return try QueryTime.checked(ms, name: name) }
        throw TrackingError.wrongType(name, expected: "an RFC 3339 string or epoch milliseconds")
    }

    static func limit(_ value: JSONValue?) throws -> Int {
        guard let value, !value.isNull else { return GeoQueryRequest.defaultLimit }
        guard let n = value.int64Value, (1...Int64(GeoQueryRequest.maxLimit)).contains(n) else {
            throw TrackingError.invalid("limit must be a whole number from 1 to \(GeoQueryRequest.maxLimit)", code: .invalidLimit)
        }
        return Int(n)
    }
}
