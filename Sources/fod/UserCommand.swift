import API
import Foundation
import Timestamps
import Tracking

/// `fod user …`: the server's operator administers accounts on its data (docs/administration.md).
///
///     fod user add <email> [--name <name>] [--admin] [--password-stdin]
///     fod user list
///     fod user reset-password <email>
///     fod user disable <email> | enable <email>
///     fod user delete <email>
///     fod user admin <email> on|off
///     fod user invite [--days <n>]
///
/// On the embedded database every subcommand takes the data directory's lock, so it refuses
/// while a server runs on it (`OfflineStore`); on PostgreSQL (`--database`) it runs beside the
/// nodes, which see its changes at once (sessions it ends stop working on every node). Passwords
/// it makes are printed once and stored only hashed.
enum UserCommand {
    static let usage = """
        usage: fod user add <email> [--name <name>] [--admin] [--password-stdin]
               fod user list | reset-password <email> | disable <email> | enable <email> | delete <email>
               fod user admin <email> on|off
               fod user invite [--days <n>]
               (each with [--data <dir> | --database <url>])
        """

    static func run(_ arguments: Arguments, environment: [String: String]) async throws -> Int32 {
        try arguments.rejectUnknown(["data", "database", "name", "days"])
        let words = Array(arguments.positionals.dropFirst())
        guard let subcommand = words.first, Self.takes(subcommand, words.count - 1) else { throw UsageError(usage) }
        let offline = try OfflineStore.open(arguments, environment: environment, purpose: "fod user \(subcommand)",
                                            advice: "stop it first (on PostgreSQL, fod user runs beside the nodes)")
        defer { offline.close() }
        let accounts = try AccountService(store: offline.store, directory: offline.store, hashing: PasswordWork(policy: AccountService.Policy()))
        let email = words.dropFirst().first ?? ""
        switch subcommand {
        case "add":
            let password = arguments.flags.contains("password-stdin") ? try Self.passwordFromStandardInput() : nil
            let name = arguments.options["name"] ?? String(email.prefix { $0 != "@" })
            let (user, made) = try await accounts.addAccount(email: email, displayName: name, password: password,
                                                            isAdmin: arguments.flags.contains("admin"))
            print("added \(user.email) (\(user.id))\(user.isAdmin ? ", an administrator" : "")")
            if let made { print("password: \(made)\n(shown once; they should choose their own after signing in)") }
        case "list":
            print(Self.table(try accounts.accounts()))
        case "reset-password":
            let user = try Self.user(email, in: accounts, place: offline.place)
            let password = try await accounts.resetPassword(userID: user.id)
            print("new password of \(user.email): \(password)\n(shown once; every session of the account ended; they should choose their own after signing in)")
        case "disable", "enable":
            let user = try Self.user(email, in: accounts, place: offline.place)
            try await accounts.setDisabled(userID: user.id, subcommand == "disable")
            print(subcommand == "disable"
                  ? "disabled \(user.email): its sessions ended; sign-in, its device tokens and import tokens are refused until `fod user enable`"
                  : "enabled \(user.email)")
        case "delete":
            let user = try Self.user(email, in: accounts, place: offline.place)
            try await accounts.deleteAccount(userID: user.id)
            print("deleted \(user.email) with its sessions, devices, their locations, memberships and the groups it owned")
        case "admin":
            guard let on = ["on": true, "off": false][words[2]] else { throw UsageError(usage) }
            let user = try Self.user(email, in: accounts, place: offline.place)
            try await accounts.setAdmin(userID: user.id, on)
            print("\(user.email) is \(on ? "now" : "no longer") an administrator")
        default: // "invite"
            let days = try arguments.int("days")
            if let days, !(1...90).contains(days) { throw UsageError("--days must be 1–90") }
            let (code, expiresAt) = try await accounts.makeInviteCode(lifetimeSeconds: days.map { Int64($0) * 86_400 })
            print("invite code: \(code)\n(one account may sign up with it until \(expiresAt.rfc3339); shown once)")
        }
        return 0
    }

    /// Whether `subcommand` takes `count` positional arguments.
    static func takes(_ subcommand: String, _ count: Int) -> Bool {
        switch subcommand {
        case "list", "invite": count == 0
        case "add", "reset-password", "disable", "enable", "delete": count == 1
        case "admin": count == 2
        default: false
        }
    }

    static func user(_ email: String, in accounts: AccountService, place: String) throws -> User {
        guard let user = try accounts.user(email: email) else { throw UsageError("no account \(email) in \(place)") }
        return user
    }

    /// The first line of standard input, without its line end (`--password-stdin`).
    static func passwordFromStandardInput() throws -> String {
        guard let line = readLine(strippingNewline: true) else { throw UsageError("--password-stdin: nothing on standard input") }
        return line
    }

    /// `fod user list`: one account a line, the oldest first.
    static func table(_ users: [User]) -> String {
        guard !users.isEmpty else { return "no accounts" }
        let rows = users.map { user -> [String] in
            let flags = [user.isAdmin ? "admin" : nil, user.isDisabled ? "disabled" : nil,
                         user.mustChangePassword ? "must-change-password" : nil].compactMap { $0 }
            return [user.email, user.displayName, user.id.rawValue, user.createdAt.rfc3339, flags.joined(separator: ",")]
        }
        let header = ["EMAIL", "NAME", "ID", "CREATED", "FLAGS"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            zip(row, widths).map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
