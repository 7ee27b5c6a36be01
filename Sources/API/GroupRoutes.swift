import HTTPServer
import JSONCore
import Tracking

/// Groups, invitations, memberships, sharing, and the partition permissions endpoint.
struct GroupRoutes {
    let services: Services

    var routes: [Route] {
        let groups = services.groups
        let rules = services.rules
        let auth = Authentication(services: services)
        return [
            Route("POST", "/v1/groups", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.create(userID: userID, name: try body.string("name"), deviceID: DeviceID(try body.string("deviceId")))
                return .json(status: 201, Documents.group(group))
            }),
            Route("GET", "/v1/groups/{id}", .inline { request in
                let credential = try auth.reader(request, of: .group(request.id()))
                return .json(Documents.group(try groups.group(id: request.id(), for: credential)))
            }),
            Route("DELETE", "/v1/groups/{id}", .deferred { request in
                try await groups.delete(groupID: request.id(), by: try auth.requireUser(request))
                return .noContent
            }),
            Route("POST", "/v1/groups/{id}/owner", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.transferOwnership(groupID: request.id(), by: userID, to: UserID(try body.string("userId")))
                return .json(Documents.group(group))
            }),
            Route("POST", "/v1/groups/{id}/invitations", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let email = try await groups.invite(groupID: request.id(), by: userID, email: try body.string("email"))
                return .json(status: 201, ["groupId": .string(request.parameter("id")), "email": .string(email)])
            }),
            Route("POST", "/v1/invitations/{groupId}/accept", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.accept(groupID: request.id("groupId"), userID: userID, deviceID: DeviceID(try body.string("deviceId")))
                return .json(Documents.group(group))
            }),
            Route("POST", "/v1/invitations/{groupId}/decline", .deferred { request in
                try await groups.decline(groupID: request.id("groupId"), userID: try auth.requireUser(request))
                return .noContent
            }),
            Route("DELETE", "/v1/groups/{id}/members/{userId}", .deferred { request in
                try await groups.removeMember(groupID: request.id(), memberID: request.id("userId"),
                                              by: try auth.requireUser(request))
                return .noContent
            }),
            Route("PUT", "/v1/groups/{id}/sharing", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.setSharing(groupID: request.id(), userID: userID, share: try body.bool("shareLocation"))
                return .json(Documents.group(group))
            }),
            Route("GET", "/v1/partitions/{partition}/permissions", .inline { request in
                let name = request.parameter("partition")
                guard let partition = Partition(name) else {
                    throw TrackingError.invalid("partition must be user=<id>, device=<id> or group=<id>", code: "invalid_partition")
                }
                let credential = try auth.credential(request)
                return .json(["partition": .string(partition.description), "read": .bool(try rules.canRead(credential, partition)),
                              "write": .bool(rules.canWrite(credential, partition))])
            }),
        ]
    }
}
