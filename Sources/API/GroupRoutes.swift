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
                let group = try await groups.create(userID: userID, name: try body.string("name"), deviceID: try body.string("deviceId"))
                return .json(status: 201, Documents.group(group))
            }),
            Route("GET", "/v1/groups/{id}", .inline { request in
                let credential = try auth.reader(request, of: .group(request.parameter("id")))
                return .json(Documents.group(try groups.group(id: request.parameter("id"), for: credential)))
            }),
            Route("DELETE", "/v1/groups/{id}", .deferred { request in
                try await groups.delete(groupID: request.parameter("id"), by: try auth.requireUser(request))
                return .noContent
            }),
            Route("POST", "/v1/groups/{id}/owner", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.transferOwnership(groupID: request.parameter("id"), by: userID, to: try body.string("userId"))
                return .json(Documents.group(group))
            }),
            Route("POST", "/v1/groups/{id}/invitations", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let email = try await groups.invite(groupID: request.parameter("id"), by: userID, email: try body.string("email"))
                return .json(status: 201, ["groupId": .string(request.parameter("id")), "email": .string(email)])
            }),
            Route("POST", "/v1/invitations/{groupId}/accept", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.accept(groupID: request.parameter("groupId"), userID: userID, deviceID: try body.string("deviceId"))
                return .json(Documents.group(group))
            }),
            Route("POST", "/v1/invitations/{groupId}/decline", .deferred { request in
                try await groups.decline(groupID: request.parameter("groupId"), userID: try auth.requireUser(request))
                return .noContent
            }),
            Route("DELETE", "/v1/groups/{id}/members/{userId}", .deferred { request in
                try await groups.removeMember(groupID: request.parameter("id"), memberID: request.parameter("userId"),
                                              by: try auth.requireUser(request))
                return .noContent
            }),
            Route("PUT", "/v1/groups/{id}/sharing", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let group = try await groups.setSharing(groupID: request.parameter("id"), userID: userID, share: try body.bool("shareLocation"))
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
