import Foundation
import Testing
import HTTPTestSupport
import Tracking

/// Who may sign up (API.md, "Accounts, administration and the web app"), through the real
/// server: the default (open until the first account, which becomes the administrator, then by
/// invitation), invite codes, invitations to an email without an account, `closed`, and what
/// `GET /v1/server` says.
@Suite struct SignUpPolicyTests {
    /// A server on `policy` (nil: the default).
    static func app(_ policy: SignUpPolicy?) throws -> TestApp {
        try TestApp(configure: { $0.accounts.signUp = policy })
    }

    static func signUp(_ app: TestApp, _ name: String, inviteCode: String? = nil) throws -> HTTPTestClient.Reply {
        let code = inviteCode.map { #","inviteCode":"\#($0)""# } ?? ""
        return try app.client().request("POST", "/v1/users", json: #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"\#(code)}"#)
    }

    static func signup(_ app: TestApp) throws -> String? {
        try app.client().get("/v1/server").json["signup"].string
    }

    @Test func theFirstAccountIsTheAdministratorAndThenSignUpNeedsAnInvitation() throws {
        let app = try Self.app(nil)
        defer { app.close() }
        let client = try app.client()
        let server = try client.get("/v1/server")
        #expect(server.status == 200 && server.json["signup"].string == "open")
        #expect(server.json["passwordLength"]["min"].int == 8 && server.json["passwordLength"]["max"].int == 256)
        let ann = try Self.signUp(app, "ann")
        #expect(ann.status == 201 && ann.json["user"]["isAdmin"].bool == true, "\(ann.text)")
        let annToken = ann.json["token"].string ?? ""
        #expect(try client.get("/v1/me", token: annToken).json["isAdmin"].bool == true)
        #expect(try Self.signup(app) == "invite")
        let refused = try Self.signUp(app, "bob")
        #expect(refused.status == 403 && refused.errorCode == "signup_closed", "\(refused.text)")
        // The administrator makes an invite code; it admits one account, which is no administrator.
        let invite = try client.request("POST", "/v1/admin/invites", token: annToken, json: #"{"expiresIn":3600}"#)
        #expect(invite.status == 201, "\(invite.text)")
        let code = try #require(invite.json["inviteCode"].string)
        #expect(code.hasPrefix("fodc_") && invite.json["expiresAt"].string != nil)
        let bob = try Self.signUp(app, "bob", inviteCode: code)
        #expect(bob.status == 201 && bob.json["user"]["isAdmin"].bool == false, "\(bob.text)")
        #expect(try Self.signUp(app, "cat", inviteCode: code).errorCode == "signup_closed")
        #expect(try Self.signUp(app, "cat", inviteCode: "fodc_made-up").errorCode == "signup_closed")
        // Only an administrator makes invite codes; a lifetime out of bounds is a 400.
        let bobToken = bob.json["token"].string ?? ""
        let notAdmin = try client.request("POST", "/v1/admin/invites", headers: ["Authorization": "Bearer \(bobToken)"])
        #expect(notAdmin.status == 403 && notAdmin.errorCode == "forbidden", "\(notAdmin.text)")
        #expect(try client.request("POST", "/v1/admin/invites", token: annToken, json: #"{"expiresIn":10}"#).errorCode == "invalid_expiry")
        #expect(try client.request("POST", "/v1/admin/invites", headers: ["Authorization": "Bearer \(annToken)"]).status == 201)
    }

    @Test func anInvitationToAnEmailWithoutAnAccountLetsItSignUpAndWaitsForIt() throws {
        let app = try Self.app(nil)
        defer { app.close() }
        let client = try app.client()
        let ann = try app.signUp("ann")
        let device = try client.request("POST", "/v1/devices", token: ann.token, json: #"{"name":"A"}"#).json["device"]["id"].string ?? ""
        let group = try client.request("POST", "/v1/groups", token: ann.token, json: #"{"name":"G","deviceId":"\#(device)"}"#).json["id"].string ?? ""
        let invited = try client.request("POST", "/v1/groups/\(group)/invitations", token: ann.token, json: #"{"email":"Zed@Example.org"}"#)
        #expect(invited.status == 201, "\(invited.text)")
        #expect(try client.request("POST", "/v1/groups/\(group)/invitations", token: ann.token, json: #"{"email":"zed@example.org"}"#)
            .errorCode == "already_invited")
        #expect(try Self.signUp(app, "dan").errorCode == "signup_closed")
        let zed = try Self.signUp(app, "zed")
        #expect(zed.status == 201, "\(zed.text)")
        let token = zed.json["token"].string ?? ""
        let invitations = try client.get("/v1/me", token: token).json["invitations"]
        #expect(invitations.count == 1 && invitations[0]["groupId"].string == group && invitations[0]["senderEmail"].string == "ann@example.org")
        let phone = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"Z"}"#).json["device"]["id"].string ?? ""
        #expect(try client.request("POST", "/v1/invitations/\(group)/accept", token: token, json: #"{"deviceId":"\#(phone)"}"#).status == 200)
        #expect(try client.get("/v1/groups/\(group)", token: token).json["members"].count == 2)
    }

    @Test func aClosedServerMakesNoAccountOverHTTP() async throws {
        let app = try Self.app(.closed)
        defer { app.close() }
        #expect(try Self.signup(app) == "closed")
        let first = try Self.signUp(app, "ann")
        #expect(first.status == 403 && first.errorCode == "signup_closed", "\(first.text)")
        // The operator's way in (`fod user add`), whatever the policy.
        let (user, password) = try await app.services.accounts.addAccount(email: "ann@example.org", displayName: "Ann", password: nil, isAdmin: false)
        #expect(user.isAdmin && user.mustChangePassword)
        let signedIn = try app.client().request("POST", "/v1/sessions", json: #"{"email":"ann@example.org","password":"\#(password ?? "")"}"#)
        #expect(signedIn.status == 200 && signedIn.json["user"]["mustChangePassword"].bool == true, "\(signedIn.text)")
        // Choosing a password of one's own clears the hint.
        let token = signedIn.json["token"].string ?? ""
        let client = try app.client()
        #expect(try client.request("PUT", "/v1/me/password", token: token,
                                   json: #"{"currentPassword":"\#(password ?? "")","newPassword":"anns-own-password"}"#).status == 204)
        #expect(try client.get("/v1/me", token: token).json["mustChangePassword"].bool == false)
        // Under a closed sign-up an invitation to an email still waits for an account the operator makes.
        let device = try client.request("POST", "/v1/devices", token: token, json: #"{"name":"A"}"#).json["device"]["id"].string ?? ""
        let group = try client.request("POST", "/v1/groups", token: token, json: #"{"name":"G","deviceId":"\#(device)"}"#).json["id"].string ?? ""
        #expect(try client.request("POST", "/v1/groups/\(group)/invitations", token: token, json: #"{"email":"bob@example.org"}"#).status == 201)
        #expect(try Self.signUp(app, "bob").errorCode == "signup_closed")
        let bob = try await app.services.accounts.addAccount(email: "bob@example.org", displayName: "Bob", password: "password-bob", isAdmin: false)
        #expect(try app.services.groups.profile(userID: bob.user.id).invitations.map(\.groupID.rawValue) == [group])
    }

    @Test func anInviteOnlyServerAdmitsNoFirstAccountWithoutAnInvitation() async throws {
        let app = try Self.app(.invite)
        defer { app.close() }
        #expect(try Self.signup(app) == "invite")
        #expect(try Self.signUp(app, "ann").errorCode == "signup_closed")
        let (code, _) = try await app.services.accounts.makeInviteCode()
        let ann = try Self.signUp(app, "ann", inviteCode: code)
        // Admitted by the operator's code, the first account is the administrator.
        #expect(ann.status == 201 && ann.json["user"]["isAdmin"].bool == true, "\(ann.text)")
    }

    @Test func anOpenServerAdmitsAnyoneAndTheOldPasswordRuleIsNowCharacters() throws {
        let app = try Self.app(.open)
        defer { app.close() }
        #expect(try Self.signup(app) == "open")
        for (name, password, status) in [("a", String(repeating: "x", count: 256), 201), ("b", String(repeating: "x", count: 257), 400),
                                         ("c", "1234567", 400), ("d", "ééééééé", 400), ("e", "éééééééé", 201),
                                         ("f", String(repeating: "🙂", count: 256), 201)] {
            let reply = try app.client().request("POST", "/v1/users", json: #"{"email":"\#(name)@example.org","password":"\#(password)","displayName":"\#(name)"}"#)
            #expect(reply.status == status, "\(name): \(reply.text)")
            if status == 400 { #expect(reply.errorCode == "invalid_password") }
        }
    }
}
