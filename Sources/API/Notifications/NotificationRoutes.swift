import Foundation
import HTTPServer
import JSONCore
import Synchronization
import Tracking

/// Channels (`/v1/me/channels`), their delivery log and test send, and a member's alerts
/// (`/v1/groups/{id}/alerts`): API.md, "Notifications: arrivals reach people".
struct NotificationRoutes {
    let notifications: NotificationService
    let tests: ChannelTestSend
    let access: RouteAccess

    /// Test sends in flight at once, all users together (each holds a thread up to the
    /// transport's timeout): 503 `busy` beyond.
    static let concurrentTestSends = 8
    static let testSends = Mutex(0)

    var routes: [Route] {
        let notifications = self.notifications, tests = self.tests
        let group = RouteGroup(access: access)
        let member = Caller.reader(.group(parameter: "id"))
        let smallBody = 16 * 1024
        return [
            group.deferred("POST", "/v1/me/channels", .user, body: NewChannelBody.self, maxBodyBytes: smallBody) { _, context, body in
                let channel = try await notifications.createChannel(userID: try context.userID, name: body.name, type: body.type,
                                                                    url: body.url, token: body.token)
                return .json(status: 201, NotificationDocuments.channel(channel, showingSecret: true))
            },
            group.inline("GET", "/v1/me/channels", .user) { _, context in
                .json(["channels": .array(try notifications.channels(userID: try context.userID).map { NotificationDocuments.channel($0) })])
            },
            group.inline("GET", "/v1/me/channels/{id}", .user) { request, context in
                .json(NotificationDocuments.channel(try notifications.channel(id: request.id(), userID: try context.userID)))
            },
            group.deferred("PATCH", "/v1/me/channels/{id}", .user, body: ChannelChangeBody.self, maxBodyBytes: smallBody) { request, context, body in
                let channel = try await notifications.updateChannel(id: request.id(), userID: try context.userID, name: body.name, url: body.url,
                                                                    token: body.token, enabled: body.enabled)
                return .json(NotificationDocuments.channel(channel))
            },
            group.deferred("DELETE", "/v1/me/channels/{id}", .user) { request, context in
                try await notifications.deleteChannel(id: request.id(), userID: try context.userID)
                return .noContent
            },
            group.deferred("POST", "/v1/me/channels/{id}/test", .user) { request, context in
                let userID = try context.userID
                let channelID: ChannelID = request.id()
                let channel = try notifications.channel(id: channelID, userID: userID)
                let result = try await Self.offThread { tests.send(to: channel) }
                return .json(NotificationDocuments.testResult(result))
            },
            group.inline("GET", "/v1/me/channels/{id}/deliveries", .user) { request, context in
                let limit = try QueryNumber.int(request.query("limit"), name: "limit") ?? 100
                let deliveries = try notifications.deliveries(channelID: request.id(), userID: try context.userID, limit: limit)
                return .json(["deliveries": .array(deliveries.map(NotificationDocuments.delivery))])
            },
            group.deferred("POST", "/v1/groups/{id}/alerts", member, body: NewAlertBody.self, maxBodyBytes: smallBody) { request, context, body in
                let alert = try await notifications.createAlert(groupID: request.id(), userID: try context.userID, channelID: body.channelID,
                                                                placeID: body.placeID, deviceID: body.deviceID, events: body.events)
                return .json(status: 201, NotificationDocuments.alert(alert))
            },
            group.inline("GET", "/v1/groups/{id}/alerts", member) { request, context in
                .json(["alerts": .array(try notifications.alerts(groupID: request.id(), userID: try context.userID).map(NotificationDocuments.alert))])
            },
            group.deferred("DELETE", "/v1/groups/{id}/alerts/{alertId}", member) { request, context in
                try await notifications.deleteAlert(id: request.id("alertId"), groupID: request.id(), userID: try context.userID)
                return .noContent
            },
        ]
    }

    /// Runs blocking `work` (an HTTP send) on a thread of its own, at most
    /// `concurrentTestSends` at once.
    static func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = testSends.withLock { count -> Bool in
            guard count < concurrentTestSends else { return false }
            count += 1
            return true
        }
        guard admitted else { throw TrackingError.busy("test notifications", retryAfter: 5) }
        defer { testSends.withLock { $0 -= 1 } }
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}

/// `{name, type, url, token?}`.
struct NewChannelBody: RequestBody {
    let name: String, type: String, url: String, token: String?
    init(_ body: JSONBody) throws {
        name = try body.string("name")
        type = try body.string("type")
        url = try body.string("url")
        token = try body.optionalString("token")
    }
}

/// `{name?, url?, token?, enabled?}` (`token: null` removes it).
struct ChannelChangeBody: RequestBody {
    let name: String?, url: String?, token: JSONValue?, enabled: Bool?
    init(_ body: JSONBody) throws {
        name = try body.optionalString("name")
        url = try body.optionalString("url")
        token = body["token"]
        enabled = try body.optionalBool("enabled")
    }
}

/// `{channelId, placeId?, deviceId?, events}`.
struct NewAlertBody: RequestBody {
    let channelID: ChannelID, placeID: PlaceID?, deviceID: DeviceID?, events: [String]
    init(_ body: JSONBody) throws {
        channelID = ChannelID(try body.string("channelId"))
        placeID = try body.optionalString("placeId").map(PlaceID.init)
        deviceID = try body.optionalString("deviceId").map(DeviceID.init)
        guard let list = body["events"] else { throw TrackingError.missingField("events") }
        guard let items = list.arrayValue, items.count <= 2 else {
            throw TrackingError.wrongType("events", expected: "an array of \"enter\" and \"exit\"")
        }
        events = try items.map { item in
            guard let text = item.stringValue else { throw TrackingError.wrongType("events", expected: "an array of \"enter\" and \"exit\"") }
            return text
        }
    }
}

/// JSON of channels, alerts and deliveries. A channel's `token` is never written; its webhook
/// `secret` only in the reply that made it.
enum NotificationDocuments {
    static func channel(_ channel: Channel, showingSecret: Bool = false) -> JSONValue {
        var object: JSONObject = ["id": .id(channel.id), "name": .string(channel.name), "type": .string(channel.type.rawValue),
                                  "url": .string(channel.url), "enabled": .bool(channel.enabled),
                                  "hasToken": .bool(channel.token != nil), "createdAt": .string(Time.format(channel.createdAt))]
        if let reason = channel.disabledReason { object["disabledReason"] = .string(reason) }
        if let since = channel.failingSince { object["failingSince"] = .string(Time.format(since)) }
        if showingSecret, let secret = channel.secret { object["secret"] = .string(secret) }
        return .object(object)
    }

    static func alert(_ alert: Alert) -> JSONValue {
        ["id": .id(alert.id), "groupId": .id(alert.groupID), "channelId": .id(alert.channelID),
         "placeId": alert.placeID.map { .id($0) } ?? .null, "deviceId": alert.deviceID.map { .id($0) } ?? .null,
         "events": .array(alert.events.map(\.rawValue).sorted().map { .string($0) }), "createdAt": .string(Time.format(alert.createdAt))]
    }

    static func delivery(_ delivery: Delivery) -> JSONValue {
        var object: JSONObject = ["id": .id(delivery.id), "eventType": .string(delivery.eventType),
                                  "createdAt": .string(Time.format(delivery.createdAt)), "status": .string(delivery.status.rawValue),
                                  "attempts": .number(JSONNumber(Int64(delivery.attempts)))]
        if let last = delivery.lastAttemptAt { object["lastAttemptAt"] = .string(Time.format(last)) }
        if delivery.status == .pending && delivery.attempts > 0 { object["nextAttemptAt"] = .string(Time.format(delivery.nextAttemptAt)) }
        if let status = delivery.httpStatus { object["httpStatus"] = .number(JSONNumber(Int64(status))) }
        if let error = delivery.error { object["error"] = .string(error) }
        return .object(object)
    }

    static func testResult(_ result: TransportResult) -> JSONValue {
        let delivered = result.httpStatus.map { (200...299).contains($0) } ?? false
        var object: JSONObject = ["status": .string(delivered ? "delivered" : "failed")]
        if let status = result.httpStatus { object["httpStatus"] = .number(JSONNumber(Int64(status))) }
        if !delivered, let error = result.error { object["error"] = .string(error) }
        return .object(object)
    }
}
