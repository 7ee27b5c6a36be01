import HTTPServer
import JSONCore
import Tracking

/// `POST /v1/users`, `POST /v1/sessions`, `GET /v1/sessions`, `DELETE /v1/sessions/current|{id}`,
/// `GET|PATCH|DELETE /v1/me`.
struct AccountRoutes {
    let accounts: AccountService
    let devices: DeviceService
    let groups: GroupService
    let shareFeed: ShareFeed
    let access: RouteAccess

    var routes: [Route] {
        let accounts = self.accounts
        let devices = self.devices, shareFeed = self.shareFeed
        let documents = Documents(groups: groups)
        let group = RouteGroup(access: access)
        return [
            group.deferred("POST", "/v1/users", .anyone, body: SignUpBody.self) { request, _, body in
                let signedIn = try await accounts.signUp(email: body.email, password: body.password, displayName: body.displayName,
                                                         inviteCode: body.inviteCode, clientAddress: request.clientLimitKey,
                                                         client: request.header("user-agent"))
                return .json(status: 201, ["user": Documents.user(signedIn.user), "token": .string(signedIn.token)])
            },
            group.deferred("POST", "/v1/sessions", .anyone, body: SignInBody.self) { request, _, body in
                let signedIn = try await accounts.signIn(email: body.email, password: body.password,
                                                         clientAddress: request.clientLimitKey, client: request.header("user-agent"))
                return .json(["user": Documents.user(signedIn.user), "token": .string(signedIn.token)])
            },
            group.deferred("DELETE", "/v1/sessions/current", .user) { request, _ in
                guard let token = Authentication.bearerToken(request) else { throw TrackingError.unauthenticated }
                try await accounts.signOut(token: token)
                return .noContent
            },
            group.inline("GET", "/v1/sessions", .user) { request, context in
                let current = try Authentication.bearerToken(request).flatMap { try accounts.session(forUserToken: $0)?.id }
                return .json(["sessions": .array(try accounts.sessions(userID: try context.userID).map { session in
                    Documents.session(session, current: session.id == current, policy: accounts.policy)
                })])
            },
            group.deferred("DELETE", "/v1/sessions/{id}", .user) { request, context in
                try await accounts.revokeSession(id: request.id(), userID: try context.userID)
                return .noContent
            },
            group.inline("GET", "/v1/me", .user) { _, context in
                .json(try documents.me(userID: try context.userID))
            },
            group.deferred("PATCH", "/v1/me", .user, body: DisplayNameBody.self) { _, context, body in
                .json(Documents.user(try await accounts.updateDisplayName(userID: try context.userID, to: body.displayName)))
            },
            group.deferred("DELETE", "/v1/me", .user) { _, context in
                let userID = try context.userID
                let owned = try devices.list(ownerID: userID)
                try await accounts.deleteAccount(userID: userID)
                for device in owned { shareFeed.deviceRemoved(device.id) }
                return .noContent
            },
        ]
    }
}
