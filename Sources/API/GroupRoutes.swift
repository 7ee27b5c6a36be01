import HTTPServer
import JSONCore
import Tracking

/// Groups, invitations, memberships, sharing, and the partition permissions endpoint.
struct GroupRoutes {
    let groups: GroupService
    let rules: PartitionRules
    let access: RouteAccess

    var routes: [Route] {
        let groups = self.groups
        let rules = self.rules
        let group = RouteGroup(access: access)
        let member = Caller.reader(.group(parameter: "id"))
        return [
            group.deferred("POST", "/v1/groups", .user, body: NewGroupBody.self) { _, context, body in
                .json(status: 201, Documents.group(try await groups.create(userID: try context.userID, name: body.name, deviceID: body.deviceID)))
            },
            group.inline("GET", "/v1/groups/{id}", member) { request, context in
                .json(Documents.group(try groups.group(id: request.id(), for: context.credential)))
            },
            group.deferred("PATCH", "/v1/groups/{id}", .user, body: GroupChangeBody.self) { request, context, body in
                .json(Documents.group(try await groups.rename(groupID: request.id(), by: try context.userID, name: body.name)))
            },
            group.deferred("DELETE", "/v1/groups/{id}", .user) { request, context in
                try await groups.delete(groupID: request.id(), by: try context.userID)
                return .noContent
            },
            group.deferred("POST", "/v1/groups/{id}/owner", .user, body: NewOwnerBody.self) { request, context, body in
                .json(Documents.group(try await groups.transferOwnership(groupID: request.id(), by: try context.userID, to: body.userID)))
            },
            group.deferred("POST", "/v1/groups/{id}/invitations", .user, body: InvitationBody.self) { request, context, body in
                let email = try await groups.invite(groupID: request.id(), by: try context.userID, email: body.email)
                return .json(status: 201, ["groupId": .string(request.parameter("id")), "email": .string(email)])
            },
            group.deferred("POST", "/v1/invitations/{groupId}/accept", .user, body: AcceptBody.self) { request, context, body in
                .json(Documents.group(try await groups.accept(groupID: request.id("groupId"), userID: try context.userID, deviceID: body.deviceID)))
            },
            group.deferred("POST", "/v1/invitations/{groupId}/decline", .user) { request, context in
                try await groups.decline(groupID: request.id("groupId"), userID: try context.userID)
                return .noContent
            },
            group.deferred("DELETE", "/v1/groups/{id}/members/{userId}", .user) { request, context in
                try await groups.removeMember(groupID: request.id(), memberID: request.id("userId"), by: try context.userID)
                return .noContent
            },
            group.deferred("PUT", "/v1/groups/{id}/sharing", .user, body: SharingBody.self) { request, context, body in
                .json(Documents.group(try await groups.setSharing(groupID: request.id(), userID: try context.userID, share: body.shareLocation)))
            },
            group.inline("GET", "/v1/partitions/{partition}/permissions", .optional) { request, context in
                guard let partition = Partition(request.parameter("partition")) else {
                    throw TrackingError.invalid("partition must be user=<id>, device=<id> or group=<id>", code: .invalidPartition)
                }
                return .json(["partition": .string(partition.description), "read": .bool(try rules.canRead(context.credential, partition)),
                              "write": .bool(rules.canWrite(context.credential, partition))])
            },
        ]
    }
}
