import HTTPServer
import JSONCore
import Tracking

/// `/v1/devices…`: add, list, read, change, remove, rotate token, and what its phone apps sent
/// besides fixes (rejections, region events). Owner's user token only (a device token is
/// refused; another user's device is 404), but for reading the device document.
struct DeviceRoutes {
    let devices: DeviceService
    let deviceLog: DeviceLogService
    let shareFeed: ShareFeed
    let access: RouteAccess

    var routes: [Route] {
        let devices = self.devices
        let deviceLog = self.deviceLog
        let shareFeed = self.shareFeed
        let group = RouteGroup(access: access)
        return [
            group.deferred("POST", "/v1/devices", .user, body: NewDeviceBody.self) { _, context, body in
                let (device, token) = try await devices.add(ownerID: try context.userID, name: body.name, platformID: body.platformID)
                return .json(status: 201, ["device": Documents.device(device), "deviceToken": .string(token)])
            },
            group.inline("GET", "/v1/devices", .user) { _, context in
                .json(["devices": .array(try devices.list(ownerID: try context.userID).map(Documents.deviceSummary))])
            },
            group.inline("GET", "/v1/devices/{id}", .reader(.device(parameter: "id"))) { request, context in
                .json(Documents.device(try devices.device(id: request.id(), for: context.credential), viewer: context.credential))
            },
            group.deferred("PATCH", "/v1/devices/{id}", .user, body: DeviceChangeBody.self) { request, context, body in
                .json(Documents.device(try await devices.update(id: request.id(), ownerID: try context.userID, name: body.name,
                                                                receiveGroupLocations: body.receiveGroupLocations,
                                                                ownTracksSecret: body.ownTracksSecret)))
            },
            group.inline("GET", "/v1/devices/{id}/rejections", .user) { request, context in
                .json(["rejections": .array(try deviceLog.rejections(deviceID: request.id(), ownerID: try context.userID)
                    .map(DeviceLogDocuments.rejection))])
            },
            group.inline("GET", "/v1/devices/{id}/events", .user) { request, context in
                .json(["events": .array(try deviceLog.events(deviceID: request.id(), ownerID: try context.userID).map(DeviceLogDocuments.event))])
            },
            group.deferred("DELETE", "/v1/devices/{id}", .user) { request, context in
                try await devices.remove(id: request.id(), ownerID: try context.userID)
                shareFeed.deviceRemoved(request.id())
                return .noContent
            },
            group.deferred("POST", "/v1/devices/{id}/token", .user) { request, context in
                .json(["deviceToken": .string(try await devices.rotateToken(id: request.id(), ownerID: try context.userID))])
            },
        ]
    }
}
