import EventJSON
import HTTPServer
import JSONCore
import Tracking

/// `GET /v1/groups/{id}/live` (server-sent events) and `GET /v1/groups/{id}/changes` (polling).
struct LiveRoutes {
    let live: LiveHub
    let feed: FeedService
    let groups: GroupService
    let places: PlaceService
    let rules: PartitionRules
    let access: RouteAccess

    var routes: [Route] {
        let group = RouteGroup(access: access)
        let member = Caller.reader(.group(parameter: "id"))
        let (live, feed, groups, places, rules) = (self.live, self.feed, self.groups, self.places, self.rules)
        return [
            group.deferred("GET", "/v1/groups/{id}/live", member, queryToken: true) { request, context in
                let groupID: GroupID = request.id()
                try rules.requireRead(context.credential, .group(groupID), hiddenAs: "group")
                let userID = try context.userID
                let queryID = try EventID.parse(request.query("lastEventId"))
                let lastEventID = try EventID.parse(request.header("last-event-id")) ?? queryID
                let stream = try live.subscribe(groupID: groupID, userID: userID, lastEventID: lastEventID) {
                    PlaceDocuments.snapshot(group: Documents.group(try groups.group(id: groupID, for: .user(userID: userID))),
                                            places: try places.places(groupID: groupID, for: userID))
                }
                var response = Response(contentType: "text/event-stream; charset=utf-8", stream: stream)
                response.setHeader("Cache-Control", "no-store")
                response.setHeader("X-Accel-Buffering", "no")
                return response
            },
            group.inline("GET", "/v1/groups/{id}/changes", member) { request, context in
                let groupID: GroupID = request.id()
                try rules.requireRead(context.credential, .group(groupID), hiddenAs: "group")
                let userID = try context.userID
                let since = try QueryNumber.int(request.query("since"), name: "since").map { EventID(Int64($0)) } ?? .start
                let limit = try QueryNumber.int(request.query("limit"), name: "limit") ?? FeedService.maxPage
                let page = try feed.changes(groupID: groupID, reader: userID, since: since, limit: limit)
                var document: JSONObject = [
                    "events": .array(page.events.map { ["id": .event($0.id), "type": .string($0.kind.rawValue), "data": EventJSON.data($0)] }),
                    "last": .event(page.last),
                ]
                if page.more { document["more"] = true }
                // The client's position was pruned from the log: it must re-read the group.
                if page.truncated { document["truncated"] = true }
                return .json(.object(document))
            },
        ]
    }
}
