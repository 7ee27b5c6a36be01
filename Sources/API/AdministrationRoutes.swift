import HTTPServer
import JSONCore
import Tracking

/// `PUT /v1/me/password`, `GET /v1/server`, `POST /v1/admin/invites` and
/// `POST /v1/devices/{id}/import-tokens` (API.md, "Accounts, administration and the web app").
struct AdministrationRoutes {
    let accounts: AccountService
    let importTokens: ImportTokenService
    let access: RouteAccess

    var routes: [Route] {
        let accounts = self.accounts
        let importTokens = self.importTokens
        let group = RouteGroup(access: access)
        return [
            group.deferred("PUT", "/v1/me/password", .user, body: PasswordChangeBody.self) { request, context, body in
                let current = try Authentication.bearerToken(request).flatMap { try accounts.session(forUserToken: $0)?.id }
                try await accounts.changePassword(userID: try context.userID, keepSession: current, current: body.currentPassword,
                                                  new: body.newPassword, clientAddress: request.clientLimitKey)
                return .noContent
            },
            group.inline("GET", "/v1/server", .anyone) { _, _ in
                .json(["signup": .string(try accounts.signUpPolicy().rawValue),
                       "passwordLength": ["min": .number(JSONNumber(AccountLimits.passwordCharacters.lowerBound)),
                                          "max": .number(JSONNumber(AccountLimits.passwordCharacters.upperBound))]])
            },
            group.deferred("POST", "/v1/admin/invites", .user, maxBodyBytes: RouteGroup.smallBody) { request, context in
                let body = request.body.isEmpty ? nil : try InviteCodeBody(JSONBody(request))
                let (code, expiresAt) = try await accounts.makeInviteCode(by: try context.userID, lifetimeSeconds: body?.expiresIn)
                return .json(status: 201, ["inviteCode": .string(code), "expiresAt": .string(Time.format(expiresAt))])
            },
            group.deferred("POST", "/v1/devices/{id}/import-tokens", .user) { request, context in
                let (token, expiresAt) = try await importTokens.create(deviceID: request.id(), ownerID: try context.userID)
                return .json(status: 201, ["token": .string(token), "expiresAt": .string(Time.format(expiresAt))])
            },
        ]
    }
}

/// `PUT /v1/me/password`.
struct PasswordChangeBody: RequestBody {
    let currentPassword: String, newPassword: String
    init(_ body: JSONBody) throws {
        currentPassword = try body.string("currentPassword")
        newPassword = try body.string("newPassword")
    }
}

/// `POST /v1/admin/invites`: an optional lifetime (seconds).
struct InviteCodeBody: RequestBody {
    let expiresIn: Int64?
    init(_ body: JSONBody) throws { expiresIn = try body.optionalInteger("expiresIn") }
}
