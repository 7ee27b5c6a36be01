import HTTPServer
import JSONCore
import Tracking

/// `/v1/devices…`: add, list, read, rename, remove, rotate token. Owner's user token only
/// (a device token is refused; another user's device is 404).
struct DeviceRoutes {
    let services: Services

    var routes: [Route] {
        let devices = services.devices
        let auth = Authentication(services: services)
        return [
            Route("POST", "/v1/devices", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let (device, token) = try await devices.add(ownerID: userID, name: try body.string("name"),
                                                            platformID: try body.optionalString("platformId"))
                return .json(status: 201, ["device": Documents.device(device), "deviceToken": .string(token)])
            }),
            Route("GET", "/v1/devices", .inline { request in
                let userID = try auth.requireUser(request)
                return .json(["devices": .array(try devices.list(ownerID: userID).map(Documents.deviceSummary))])
            }),
            Route("GET", "/v1/devices/{id}", .inline { request in
                let credential = try auth.reader(request, of: .device(request.id()))
                return .json(Documents.device(try devices.device(id: request.id(), for: credential), viewer: credential))
            }),
            Route("PATCH", "/v1/devices/{id}", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let device = try await devices.rename(id: request.id(), ownerID: userID, to: try body.string("name"))
                return .json(Documents.device(device))
            }),
            Route("DELETE", "/v1/devices/{id}", .deferred { request in
                let userID = try auth.requireUser(request)
                try await devices.remove(id: request.id(), ownerID: userID)
                return .noContent
            }),
            Route("POST", "/v1/devices/{id}/token", .deferred { request in
                let userID = try auth.requireUser(request)
                let token = try await devices.rotateToken(id: request.id(), ownerID: userID)
                return .json(["deviceToken": .string(token)])
            }),
        ]
    }
}
