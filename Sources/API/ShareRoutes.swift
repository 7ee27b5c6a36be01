import HTTPServer
import JSONCore
import Tracking

/// Share links (API.md, "Share links"): the owner's `/v1/devices/{id}/shares…` routes, and the
/// holder's `/v1/shared/{token}`, `/v1/shared/{token}/live` and the page `/s/{token}`, which
/// need no account: the token is the credential. Every answer for an unknown, expired or
/// revoked token is the same 404; failed lookups are limited per client address (429).
struct ShareRoutes {
    let shares: ShareService
    let feed: ShareFeed
    let logger: Logger
    let access: RouteAccess
    let web: WebAssets?

    var routes: [Route] {
        let shares = self.shares
        let feed = self.feed
        let logger = self.logger
        let web = self.web
        let group = RouteGroup(access: access)
        /// The link of the path's token, counted as a view when `counts`.
        @Sendable func link(_ request: Request, counts: Bool) async throws -> ShareLink {
            let share = try shares.link(forToken: request.parameter("token"), clientAddress: request.clientLimitKey)
            if counts {
                // A view that cannot be counted (storage full) is still shown.
                do { try await shares.countView(share.id) } catch { logger.warning("share view not counted: \(error)") }
            }
            return share
        }
        return [
            group.deferred("POST", "/v1/devices/{id}/shares", .user, body: NewShareBody.self) { request, context, body in
                let (share, token) = try await shares.create(deviceID: request.id(), ownerID: try context.userID,
                                                             name: body.name, lifetimeSeconds: body.expiresIn)
                guard case .object(var document) = Self.ownerDocument(share) else { return .noContent }
                document["token"] = .string(token)
                document["url"] = .string("/s/" + token)
                return .json(status: 201, .object(document))
            },
            group.inline("GET", "/v1/devices/{id}/shares", .user) { request, context in
                .json(["shares": .array(try shares.list(deviceID: request.id(), ownerID: try context.userID).map(Self.ownerDocument))])
            },
            group.deferred("DELETE", "/v1/devices/{id}/shares/{shareId}", .user) { request, context in
                try await shares.revoke(deviceID: request.id(), shareID: request.id("shareId"), ownerID: try context.userID)
                return .noContent
            },
            group.deferred("POST", "/v1/devices/{id}/shares/{shareId}/renew", .user, maxBodyBytes: RouteGroup.smallBody) { request, context in
                let body = request.body.isEmpty ? nil : try NewShareBody(JSONBody(request))
                return .json(Self.ownerDocument(try await shares.renew(deviceID: request.id(), shareID: request.id("shareId"),
                                                                      ownerID: try context.userID, lifetimeSeconds: body?.expiresIn)))
            },
            group.deferred("GET", "/v1/shared/{token}", .anyone) { request, _ in
                let share = try await link(request, counts: true)
                var response = Response.json(Self.holderDocument(try shares.view(of: share)))
                Self.noStore(&response)
                return response
            },
            group.deferred("GET", "/v1/shared/{token}/live", .anyone) { request, _ in
                let share = try await link(request, counts: false)
                let stream = try feed.subscribe(share, limit: shares.policy.streamsPerLink,
                                                snapshot: { try shares.view(of: share) },
                                                document: { Self.holderDocument($0, trackLimit: Self.liveSnapshotTrackLimit) })
                var response = Response(contentType: "text/event-stream; charset=utf-8", stream: stream)
                response.setHeader("X-Accel-Buffering", "no")
                Self.noStore(&response)
                return response
            },
            group.deferred("GET", "/s/{token}", .anyone) { request, _ in
                guard let web, let page = web.sharePage else {
                    throw HTTPError(status: 404, code: .notFound, message: "the web pages are not installed (Web/ missing)")
                }
                do {
                    _ = try await link(request, counts: true)
                } catch let error as TrackingError where error.kind == .notFound {
                    var response = web.response(WebAssets.Asset(contentType: "text/html; charset=utf-8", bytes: Self.unavailablePage), status: 404)
                    Self.noStore(&response)
                    return response
                }
                var response = web.response(page)
                Self.noStore(&response)
                return response
            },
        ]
    }

    /// Neither cached nor sent on as a referrer: the URL holds the credential.
    static func noStore(_ response: inout Response) {
        response.setHeader("Cache-Control", "no-store")
        response.setHeader("Referrer-Policy", "no-referrer")
    }

    /// A link as its owner lists it (never its token).
    static func ownerDocument(_ share: ShareLink) -> JSONValue {
        var object: JSONObject = ["id": .id(share.id), "deviceId": .id(share.deviceID), "createdAt": .string(Time.format(share.createdAt)),
                                  "expiresAt": .string(Time.format(share.expiresAt)), "views": .number(JSONNumber(share.views)),
                                  "active": .bool(share.isActive(at: .now))]
        object["name"] = share.name.map { .string($0) } ?? .null
        return .object(object)
    }

    /// Most track points a live stream's `snapshot` carries (the newest): the opening stays
    /// small whatever the link's track holds; `trackComplete: false` then tells the page that
    /// `GET /v1/shared/{token}` has the rest.
    static let liveSnapshotTrackLimit = 1_000

    /// `GET /v1/shared/{token}` and the live stream's `snapshot` (with at most `trackLimit` of
    /// the newest track points, and `trackComplete` saying whether that is all of it).
    static func holderDocument(_ view: SharedView, trackLimit: Int = .max) -> JSONValue {
        let track = view.track.suffix(max(0, trackLimit))
        let location: JSONValue = view.location.map { fix in
            var object: JSONObject = ["coordinates": Documents.position(fix.position), "updatedAt": .string(Time.format(fix.timestamp))]
            if let accuracy = fix.accuracy { object["accuracy"] = .number(JSONNumber(accuracy)) }
            return .object(object)
        } ?? .null
        return ["deviceName": .string(view.deviceName), "expiresAt": .string(Time.format(view.expiresAt)), "location": location,
                "track": .array(track.map { .array([.number(JSONNumber($0.longitude)), .number(JSONNumber($0.latitude)),
                                                    .string(Time.format($0.timestamp))]) }),
                "trackComplete": .bool(track.count == view.track.count)]
    }

    /// What `/s/{token}` shows for every token that opens nothing (the same bytes for all).
    static let unavailablePage = Array("""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Link not available</title><link rel="stylesheet" href="/static/style.css"></head>
        <body class="share-gone"><main class="card"><h1>This link is not available</h1>
        <p>It may have expired or been turned off by the person who shared it.</p></main></body></html>

        """.utf8)
}
