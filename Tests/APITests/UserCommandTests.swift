import Foundation
import Testing
import HTTPTestSupport

/// `fod user` and `fod serve --signup` through real processes, on the selected store (its data
/// directory, or with `--database` the PostgreSQL database): accounts added, listed, given a new
/// password, disabled and enabled again, made administrators, deleted, invite codes, and the
/// sign-up policies of a real server.
@Suite struct UserCommandTests {
    /// `fod user <arguments>` on `served`'s data; (status, output).
    static func user(_ served: ServedStore, _ arguments: [String], input: String? = nil) throws -> (Int32, String) {
        try FodProcess.run(["user"] + arguments + ["--data", served.directory] + served.storeArguments, input: input)
    }

    /// The value printed after `label` on a line of `output`.
    static func printed(_ label: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(label) }.map { String($0.dropFirst(label.count)) }
    }

    static func signIn(_ server: FodProcess, _ email: String, _ password: String) throws -> HTTPTestClient.Reply {
        try HTTPTestClient(port: server.port).request("POST", "/v1/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
    }

    static func signUp(_ server: FodProcess, _ name: String, inviteCode: String? = nil) throws -> HTTPTestClient.Reply {
        let code = inviteCode.map { #","inviteCode":"\#($0)""# } ?? ""
        return try HTTPTestClient(port: server.port).request("POST", "/v1/users",
                                                             json: #"{"email":"\#(name)@example.org","password":"password-\#(name)","displayName":"\#(name)"\#(code)}"#)
    }

    @Test func accountsAreAddedResetDisabledAndEnabledOnAStoppedServersData() throws {
        let served = try ServedStore("fod-user-cli-")
        defer { served.remove() }
        let (added, addOutput) = try Self.user(served, ["add", "ann@example.org", "--name", "Ann"])
        #expect(added == 0, "\(addOutput)")
        #expect(addOutput.contains("an administrator"), "\(addOutput)")
        let firstPassword = try #require(Self.printed("password: ", in: addOutput))
        let (bobAdded, bobOutput) = try Self.user(served, ["add", "bob@example.org", "--password-stdin"], input: "bobs-own-password\n")
        #expect(bobAdded == 0 && !bobOutput.contains("password: ") && !bobOutput.contains("administrator"), "\(bobOutput)")
        #expect(try Self.user(served, ["add", "bob@example.org"]).0 == 1)
        let (_, list) = try Self.user(served, ["list"])
        let lines = list.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("EMAIL"), "\(list)")
        #expect(lines[1].hasPrefix("ann@example.org") && lines[1].hasSuffix("admin,must-change-password"), "\(list)")
        #expect(lines[2].hasPrefix("bob@example.org") && lines[2].contains(" bob "), "\(list)")

        var server = try served.serve()
        let signedIn = try Self.signIn(server, "ann@example.org", firstPassword)
        #expect(signedIn.status == 200 && signedIn.json["user"]["mustChangePassword"].bool == true, "\(signedIn.text)")
        let token = signedIn.json["token"].string ?? ""
        #expect(try Self.signIn(server, "bob@example.org", "bobs-own-password").json["user"]["mustChangePassword"].bool == false)
        #expect(server.stop() == 0)

        let (reset, resetOutput) = try Self.user(served, ["reset-password", "ann@example.org"])
        #expect(reset == 0, "\(resetOutput)")
        let newPassword = try #require(Self.printed("new password of ann@example.org: ", in: resetOutput))
        #expect(try Self.user(served, ["disable", "ann@example.org"]).0 == 0)
        server = try served.serve()
        #expect(try HTTPTestClient(port: server.port).get("/v1/me", token: token).status == 401)
        #expect(try Self.signIn(server, "ann@example.org", firstPassword).status == 401)
        #expect(try Self.signIn(server, "ann@example.org", newPassword).errorCode == "account_disabled")
        #expect(server.stop() == 0)

        #expect(try Self.user(served, ["enable", "ann@example.org"]).0 == 0)
        #expect(try Self.user(served, ["admin", "bob@example.org", "on"]).0 == 0)
        let (unknown, unknownOutput) = try Self.user(served, ["disable", "nobody@example.org"])
        #expect(unknown == 2 && unknownOutput.contains("no account nobody@example.org"), "\(unknownOutput)")
        server = try served.serve()
        let back = try Self.signIn(server, "ann@example.org", newPassword)
        #expect(back.status == 200 && back.json["user"]["mustChangePassword"].bool == true, "\(back.text)")
        #expect(try Self.signIn(server, "bob@example.org", "bobs-own-password").json["user"]["isAdmin"].bool == true)
        #expect(server.stop() == 0)

        #expect(try Self.user(served, ["delete", "bob@example.org"]).0 == 0)
        let (_, after) = try Self.user(served, ["list"])
        #expect(after.split(separator: "\n").count == 2 && !after.contains("bob@"), "\(after)")
    }

    /// On the embedded database `fod user` refuses beside a running server; on PostgreSQL it runs
    /// beside the nodes, and they use what it made at once.
    @Test func anInviteCodeFromTheCommandLineAdmitsOneAccount() throws {
        let served = try ServedStore("fod-user-cli-")
        defer { served.remove() }
        let onPostgres = !served.storeArguments.isEmpty
        let server = try served.serve(["--signup", "invite"])
        let (status, output) = try Self.user(served, ["invite", "--days", "2"])
        if !onPostgres {
            #expect(status == 1, "\(output)")
            #expect(output.contains("is in use by a running server (process "), "\(output)")
            #expect(output.contains("fod serve): stop it first"), "\(output)")
            #expect(server.stop() == 0)
            let (again, text) = try Self.user(served, ["invite", "--days", "2"])
            #expect(again == 0, "\(text)")
            let code = try #require(Self.printed("invite code: ", in: text))
            let restarted = try served.serve(["--signup", "invite"])
            defer { restarted.stop() }
            try Self.expectOneAccountPerCode(restarted, code)
        } else {
            defer { server.stop() }
            #expect(status == 0, "\(output)")
            try Self.expectOneAccountPerCode(server, try #require(Self.printed("invite code: ", in: output)))
        }
    }

    static func expectOneAccountPerCode(_ server: FodProcess, _ code: String) throws {
        #expect(code.hasPrefix("fodc_"))
        #expect(try Self.signUp(server, "ann").errorCode == "signup_closed")
        let ann = try Self.signUp(server, "ann", inviteCode: code)
        // Admitted by the operator's code, the server's first account is its administrator.
        #expect(ann.status == 201 && ann.json["user"]["isAdmin"].bool == true, "\(ann.text)")
        #expect(try Self.signUp(server, "bob", inviteCode: code).errorCode == "signup_closed")
    }

    /// A real `fod serve` without `--signup` (the harness passes `--signup open`; an empty value
    /// is the default): open for the first account, which is the administrator, then by invitation.
    @Test func aNewServerLetsTheFirstPersonInThenClosesToInvitations() throws {
        let served = try ServedStore("fod-signup-")
        defer { served.remove() }
        let server = try served.serve(["--signup="])
        defer { server.stop() }
        let client = try HTTPTestClient(port: server.port)
        #expect(try client.get("/v1/server").json["signup"].string == "open")
        let first = try Self.signUp(server, "ann")
        #expect(first.status == 201 && first.json["user"]["isAdmin"].bool == true, "\(first.text)")
        #expect(try client.get("/v1/server").json["signup"].string == "invite")
        let second = try Self.signUp(server, "bob")
        #expect(second.status == 403 && second.errorCode == "signup_closed", "\(second.text)")
    }

    @Test func aClosedServerRefusesSignUpAndAWrongPolicyIsAUsageError() throws {
        let served = try ServedStore("fod-signup-")
        defer { served.remove() }
        let server = try served.serve(["--signup", "closed"])
        defer { server.stop() }
        #expect(try HTTPTestClient(port: server.port).get("/v1/server").json["signup"].string == "closed")
        #expect(try Self.signUp(server, "ann").errorCode == "signup_closed")
        let (status, output) = try FodProcess.run(["serve", "--signup", "sometimes", "--data", served.directory + "-unused"])
        #expect(status == 2 && output.contains("--signup must be open, invite or closed"), "\(output)")
        let (usage, usageText) = try FodProcess.run(["user", "frobnicate", "--data", served.directory + "-unused"])
        #expect(usage == 2 && usageText.contains("usage: fod user add"), "\(usageText)")
    }
}
