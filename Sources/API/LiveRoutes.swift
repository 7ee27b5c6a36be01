import HTTPServer
import JSONCore
import Tracking

/// `GET /v1/groups/{id}/live` (server-sent events) and `GET /v1/groups/{id}/changes` (polling).
struct LiveRoutes {
    let services: Services
    static let maxChangesPage = 1_000
    /// Most log entries one `/changes` call reads while skipping hidden ones.
    static let maxChangesScanned = 100_000

    var routes: [Route] {
        let services = self.services
        let auth = Authentication(services: services)
        return [
            Route("GET", "/v1/groups/{id}/live", .deferred { request in
                let groupID = request.parameter("id")
                let userID = try Self.member(request, groupID: groupID, auth: auth, allowQueryToken: true)
                let queryID = try EventID.parse(request.query("lastEventId"))
                let lastEventID = try EventID.parse(request.header("last-event-id")) ?? queryID
                let groups = services.groups
                let stream = try services.live.subscribe(groupID: groupID, userID: userID, lastEventID: lastEventID) {
                    Documents.group(try groups.group(id: groupID, for: .user(userID: userID)))
                }
                var response = Response(contentType: "text/event-stream; charset=utf-8", stream: stream)
                response.setHeader("Cache-Control", "no-cache")
                response.setHeader("X-Accel-Buffering", "no")
                return response
            }),
            Route("GET", "/v1/groups/{id}/changes", .inline { request in
                let groupID = request.parameter("id")
                let userID = try Self.member(request, groupID: groupID, auth: auth, allowQueryToken: false)
                let since = try QueryNumber.int(request.query("since"), name: "since").map(Int64.init) ?? 0
                let limit = try QueryNumber.int(request.query("limit"), name: "limit") ?? Self.maxChangesPage
                guard since >= 0, (1...Self.maxChangesPage).contains(limit) else {
                    throw TrackingError.invalid("since must be ≥ 0 and limit 1 to \(Self.maxChangesPage)", code: "invalid_range")
                }
                return .json(try Self.changes(services.backend, groupID: groupID, readerID: userID, since: since, limit: limit))
            }),
        ]
    }

    /// A page of the log after `since` as `reader` may see it. Hidden events (locations of
    /// members who do not share now, redacted ones) are skipped, reading on until the page has
    /// something or the log ends: an empty page means "done" — unless `maxChangesScanned`
    /// entries were all hidden, which the reply says with `"more": true`.
    static func changes(_ log: any EventLog, groupID: String, readerID: String, since: Int64, limit: Int) throws -> JSONValue {
        guard let state = try log.feedSnapshot(groupID: groupID, readerID: readerID) else { throw TrackingError.notFound("group") }
        var visible: [GroupEvent] = []
        var last = since
        var scanned = 0
        var more = false
        while visible.count < limit {
            if scanned >= maxChangesScanned { more = true; break }
            let wanted = limit - visible.count
            let page = try log.events(groupID: groupID, after: last, limit: wanted)
            guard let end = page.last?.id else { break }
            last = end
            scanned += page.count
            visible += page.filter(state.visibility.serves)
            if page.count < wanted { break }  // the end of the log
        }
        var document: JSONObject = [
            "events": .array(visible.map { ["id": .number(JSONNumber($0.id)), "type": .string($0.kind.rawValue), "data": $0.data] }),
            "last": .number(JSONNumber(last)),
        ]
        if more { document["more"] = true }
        // The client's position was pruned from the log: it must re-read the group.
        if since < (state.oldestEventID.map { $0 - 1 } ?? state.lastEventID) { document["truncated"] = true }
        return .object(document)
    }

    /// The caller's user id if they are a member (404 otherwise). EventSource cannot set
    /// headers, so the live route also takes the user token as `?token=`.
    static func member(_ request: Request, groupID: String, auth: Authentication, allowQueryToken: Bool) throws -> String {
        var credential = try auth.credential(request)
        if credential == .anonymous, allowQueryToken, let token = request.query("token") {
            credential = try auth.credential(forToken: token)
        }
        credential = try auth.reader(credential, of: .group(groupID))
        try PartitionRules(facts: auth.services.backend).requireRead(credential, .group(groupID), hiddenAs: "group")
        return credential.userID ?? ""
    }
}
