import GeoKit
import GeoQuery
import HTTPServer
import JSONCore
import Tracking

/// `POST /v1/groups/{id}/query` (MongoDB operator syntax) and `GET /v1/groups/{id}/near`.
struct QueryRoutes {
    let services: Services

    var routes: [Route] {
        let queries = services.queries
        let group = RouteGroup(services: services)
        let member = Caller.reader(.group(parameter: "id"))
        let gate = services.queryGate
        return [
            group.deferred("POST", "/v1/groups/{id}/query", member, maxBodyBytes: 4 << 20) { request, context in
                let body = try JSONBody(request)
                guard let filter = body["filter"]?.objectValue else { throw TrackingError.missingField("filter") }
                guard filter.count == 1, let location = filter["location"] else {
                    throw TrackingError.invalid("filter must be {\"location\": <geo operator>}", code: "invalid_filter")
                }
                let query = GeoQueryRequest(filter: try GeoFilter.parse(location),
                                            scope: try Self.scope(body["scope"]?.stringValue ?? (body["scope"] == nil ? "latest" : ""),
                                                                  from: try Self.time(body["from"], "from"), to: try Self.time(body["to"], "to")),
                                            limit: try Self.limit(body["limit"]), explain: try body.optionalBool("explain") ?? false)
                return .json(try gate.run { try Self.answer(queries, request.id(), context.credential, query) })
            },
            group.deferred("GET", "/v1/groups/{id}/near", member) { request, context in
                guard let lon = try QueryNumber.double(request.query("lon"), name: "lon"),
                      let lat = try QueryNumber.double(request.query("lat"), name: "lat") else {
                    throw TrackingError.invalid("lon and lat are required", code: "missing_field")
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
                return .json(try gate.run { try Self.answer(queries, request.id(), context.credential, query) })
            },
        ]
    }

    static func answer(_ queries: GeoQueryService, _ groupID: GroupID, _ credential: Credential, _ query: GeoQueryRequest) throws -> JSONValue {
        let (results, explain) = try queries.query(groupID: groupID, credential: credential, query)
        var document: JSONObject = ["results": .array(results.map { r in
            var o: JSONObject = ["deviceId": .id(r.deviceID), "userId": .id(r.userID),
                                 "location": Documents.position(r.longitude, r.latitude), "timestamp": .string(Time.format(r.timestamp))]
            if let d = r.distance { o["distance"] = .number(JSONNumber(d)) }
            return .object(o)
        })]
        if query.explain {
            document["explain"] = ["scope": .string(explain.scope), "cellsInCovering": .number(JSONNumber(explain.cellsInCovering)),
                                   "ranges": .number(JSONNumber(explain.ranges)), "keysExamined": .number(JSONNumber(explain.keysExamined)),
                                   "docsExamined": .number(JSONNumber(explain.docsExamined)), "cellsProbed": .number(JSONNumber(explain.cellsProbed)),
                                   "nReturned": .number(JSONNumber(results.count)),
                                   "covering": .array(explain.coveringTokens.map { .string($0) })]
        }
        return .object(document)
    }

    static func scope(_ name: String, from: Int64?, to: Int64?) throws -> QueryScope {
        switch name {
        case "latest":
            if from != nil || to != nil { throw TrackingError.invalid("from and to apply to scope \"history\" only", code: "invalid_scope") }
            return .latest
        case "history": return .history(from: from, to: to)
        default: throw TrackingError.invalid("scope must be \"latest\" or \"history\"", code: "invalid_scope")
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
            throw TrackingError.invalid("limit must be a whole number from 1 to \(GeoQueryRequest.maxLimit)", code: "invalid_limit")
        }
        return Int(n)
    }
}
