import HTTPServer
import JSONCore
import Tracking

/// `POST /v1/users`, `POST /v1/sessions`, `GET /v1/sessions`, `DELETE /v1/sessions/current|{id}`,
/// `GET|PATCH|DELETE /v1/me`.
struct AccountRoutes {
    let services: Services
    var auth: Authentication { Authentication(services: services) }

    var routes: [Route] {
        let accounts = services.accounts
        let auth = self.auth
        let documents = Documents(services: services)
        return [
            Route("POST", "/v1/users", maxBodyBytes: 16 * 1024, .deferred { request in
                let body = try JSONBody(request)
                let signedIn = try await accounts.signUp(email: try body.string("email"), password: try body.string("password"),
                                                         displayName: try body.string("displayName"),
                                                         clientAddress: request.remoteAddress, client: request.header("user-agent"))
                return .json(status: 201, ["user": Documents.user(signedIn.user), "token": .string(signedIn.token)])
            }),
            Route("POST", "/v1/sessions", maxBodyBytes: 16 * 1024, .deferred { request in
                let body = try JSONBody(request)
                let signedIn = try await accounts.signIn(email: try body.string("email"), password: try body.string("password"),
                                                         clientAddress: request.remoteAddress, client: request.header("user-agent"))
                return .json(["user": Documents.user(signedIn.user), "token": .string(signedIn.token)])
            }),
            Route("DELETE", "/v1/sessions/current", .deferred { request in
                guard let token = Authentication.bearerToken(request) else { throw TrackingError.unauthenticated }
                if case .device = try auth.credential(request) { _ = try auth.requireUser(request) }
                try await accounts.signOut(token: token)
                return .noContent
            }),
            Route("GET", "/v1/sessions", .inline { request in
                let userID = try auth.requireUser(request)
                let current = try Authentication.bearerToken(request).flatMap { try accounts.session(forUserToken: $0)?.id }
                return .json(["sessions": .array(try accounts.sessions(userID: userID).map { session in
                    Documents.session(session, current: session.id == current, policy: accounts.policy)
                })])
            }),
            Route("DELETE", "/v1/sessions/{id}", .deferred { request in
                let userID = try auth.requireUser(request)
                try await accounts.revokeSession(id: request.id(), userID: userID)
                return .noContent
            }),
            Route("GET", "/v1/me", .inline { request in
                let userID = try auth.requireUser(request)
                return .json(try documents.me(userID: userID))
            }),
            Route("PATCH", "/v1/me", maxBodyBytes: 16 * 1024, .deferred { request in
                let userID = try auth.requireUser(request)
                let body = try JSONBody(request)
                let user = try await accounts.updateDisplayName(userID: userID, to: try body.string("displayName"))
                return .json(Documents.user(user))
            }),
            Route("DELETE", "/v1/me", .deferred { request in
                let userID = try auth.requireUser(request)
                try await accounts.deleteAccount(userID: userID)
                return .noContent
            }),
        ]
    }
}

