import StoreTestSupport
import Testing
import Tracking

/// `AccountAdministrationStore` and `ImportTokenStore`: who may make an account, administrators,
/// invite codes, invitations by email, passwords, disabled accounts and import tokens.
@Suite("Store conformance: administration")
struct AdministrationConformance {
    @Test(arguments: StoreFactory.all)
    func theFirstAccountIsTheAdministratorAndLaterOnesNeedAnInvitation(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            // An account nobody can sign in to (the demo's vessels) is no account here.
            try await Fixtures.user(store, "vessel", createdAt: Fixtures.t0 - 1)
            #expect(try !store.hasAccounts())
            let ann = try await store.createAccount(Fixtures.account("ann"), admission: .firstOrInvited(inviteCodeHash: nil), now: Fixtures.t0)
            #expect(ann.isAdmin && !ann.isDisabled)
            #expect(try store.hasAccounts())
            #expect(try store.user(id: ann.id) == ann)
            #expect(try store.session(tokenHash: "session-ann")?.userID == ann.id)
            let bob = Fixtures.account("bob")
            let code = await Fixtures.refused { _ = try await store.createAccount(bob, admission: .firstOrInvited(inviteCodeHash: nil), now: Fixtures.t0) }
            #expect(code == "signup_closed")
            // Atomic: nothing of the refused account stayed.
            #expect(try store.user(id: bob.user.id) == nil && store.session(tokenHash: "session-bob") == nil)
            // Admitted by anyone's rule, a later account is no administrator unless asked.
            let cat = try await store.createAccount(Fixtures.account("cat", createdAt: Fixtures.t0 + 1), admission: .anyone, now: Fixtures.t0)
            let dan = try await store.createAccount(Fixtures.account("dan", admin: true, createdAt: Fixtures.t0 + 2), admission: .anyone, now: Fixtures.t0)
            #expect(!cat.isAdmin && dan.isAdmin)
            #expect(try store.accounts().map(\.displayName) == ["vessel", "ann", "cat", "dan"])
            let taken = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("cat"), admission: .anyone, now: Fixtures.t0) }
            #expect(taken == "email_taken")
        }
    }

    @Test(arguments: StoreFactory.all)
    func concurrentFirstSignUpsMakeOneAdministrator(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<8 {
                    group.addTask {
                        await Fixtures.refused {
                            _ = try await store.createAccount(Fixtures.account("first\(n)"), admission: .firstOrInvited(inviteCodeHash: nil), now: Fixtures.t0)
                        } == "none"
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try store.accounts().filter(\.isAdmin).count == 1)
        }
    }

    @Test(arguments: StoreFactory.all)
    func anInviteCodeAdmitsOneAccountBeforeItExpires(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            _ = try await store.createAccount(Fixtures.account("ann"), admission: .anyone, now: Fixtures.t0)
            try await store.insertInviteCode(codeHash: "code-1", createdAt: Fixtures.t0, expiresAt: Fixtures.t0 + 1_000)
            try await store.insertInviteCode(codeHash: "code-2", createdAt: Fixtures.t0, expiresAt: Fixtures.t0 + 1_000)
            let bob = try await store.createAccount(Fixtures.account("bob"), admission: .invited(inviteCodeHash: "code-1"), now: Fixtures.t0 + 999)
            #expect(!bob.isAdmin)
            let again = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("cat"), admission: .invited(inviteCodeHash: "code-1"), now: Fixtures.t0) }
            let unknown = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("cat"), admission: .invited(inviteCodeHash: "nope"), now: Fixtures.t0) }
            let expired = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("cat"), admission: .invited(inviteCodeHash: "code-2"), now: Fixtures.t0 + 1_000) }
            let none = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("cat"), admission: .invited(inviteCodeHash: nil), now: Fixtures.t0) }
            #expect([again, unknown, expired, none] == Array(repeating: "signup_closed", count: 4))
            // An email already taken is refused before the code is looked at: the code stays usable.
            try await store.insertInviteCode(codeHash: "code-3", createdAt: Fixtures.t0, expiresAt: Fixtures.t0 + 1_000)
            let taken = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("bob"), admission: .invited(inviteCodeHash: "code-3"), now: Fixtures.t0) }
            #expect(taken == "email_taken")
            _ = try await store.createAccount(Fixtures.account("dan"), admission: .invited(inviteCodeHash: "code-3"), now: Fixtures.t0)
        }
    }

    @Test(arguments: StoreFactory.all)
    func anInvitationByEmailAdmitsThatEmailAndBecomesItsInvitation(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await store.writeDirectory { tx in
                try tx.insertEmailInvitation(groupID: world.group, email: "zed@example.org", senderID: world.owner.id,
                                             at: Fixtures.t0, expiresAt: Fixtures.t0 + 10_000)
                try tx.insertEmailInvitation(groupID: world.group, email: "old@example.org", senderID: world.owner.id,
                                             at: Fixtures.t0, expiresAt: Fixtures.t0 + 10)
            }
            #expect(try store.readDirectory { try $0.hasEmailInvitation(groupID: world.group, email: "zed@example.org", now: Fixtures.t0 + 9_999) })
            #expect(try !store.readDirectory { try $0.hasEmailInvitation(groupID: world.group, email: "old@example.org", now: Fixtures.t0 + 10) })
            let expired = await Fixtures.refused { _ = try await store.createAccount(Fixtures.account("old"), admission: .invited(inviteCodeHash: nil), now: Fixtures.t0 + 10) }
            #expect(expired == "signup_closed")
            let zed = try await store.createAccount(Fixtures.account("zed"), admission: .invited(inviteCodeHash: nil), now: Fixtures.t0 + 100)
            let invitations = try store.readDirectory { try $0.invitationSummaries(inviteeID: zed.id) }
            #expect(invitations.map(\.groupID) == [world.group] && invitations.first?.senderEmail == world.owner.email)
            #expect(try !store.readDirectory { try $0.hasEmailInvitation(groupID: world.group, email: "zed@example.org", now: Fixtures.t0) })
            // An expired invitation by email becomes no invitation of an account made later anyway.
            let old = try await store.createAccount(Fixtures.account("old"), admission: .anyone, now: Fixtures.t0 + 100)
            #expect(try store.readDirectory { try $0.invitationSummaries(inviteeID: old.id) }.isEmpty)
            // Inviting again replaces an expired invitation.
            try await store.writeDirectory { tx in
                try tx.insertEmailInvitation(groupID: world.group, email: "new@example.org", senderID: world.owner.id, at: Fixtures.t0, expiresAt: Fixtures.t0 + 1)
                try tx.insertEmailInvitation(groupID: world.group, email: "new@example.org", senderID: world.viewer.id, at: Fixtures.t0 + 5, expiresAt: Fixtures.t0 + 50)
            }
            #expect(try store.readDirectory { try $0.hasEmailInvitation(groupID: world.group, email: "new@example.org", now: Fixtures.t0 + 20) })
        }
    }

    @Test(arguments: StoreFactory.all)
    func aNewPasswordEndsEveryOtherSession(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await store.createAccount(Fixtures.account("ann"), admission: .anyone, now: Fixtures.t0)
            let kept = try #require(try store.session(tokenHash: "session-ann"))
            let other = Session(id: .generate(), userID: ann.id, createdAt: Fixtures.time(Fixtures.t0 + 1), lastUsedAt: Fixtures.time(Fixtures.t0 + 1), client: nil)
            try await store.createSession(other, tokenHash: "session-ann-2", keepAtMost: 10)
            let bob = try await store.createAccount(Fixtures.account("bob"), admission: .anyone, now: Fixtures.t0)
            #expect(try await store.setPassword(userID: ann.id, passwordHash: "$argon2id$new", mustChange: true, keepSession: kept.id))
            #expect(try store.session(tokenHash: "session-ann") == kept)
            #expect(try store.session(tokenHash: "session-ann-2") == nil)
            #expect(try store.session(tokenHash: "session-bob")?.userID == bob.id)
            let (user, hash) = try #require(try store.userWithPasswordHash(email: ann.email))
            #expect(hash == "$argon2id$new" && user.mustChangePassword)
            #expect(try await store.setPassword(userID: ann.id, passwordHash: "$argon2id$newer", mustChange: false, keepSession: nil))
            #expect(try store.sessions(userID: ann.id).isEmpty)
            #expect(try store.user(id: ann.id)?.mustChangePassword == false)
            #expect(try await !store.setPassword(userID: .generate(), passwordHash: "x", mustChange: false, keepSession: nil))
        }
    }

    @Test(arguments: StoreFactory.all)
    func aDisabledAccountsCredentialsWorkNoMoreUntilItIsEnabled(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await store.createAccount(Fixtures.account("ann"), admission: .anyone, now: Fixtures.t0)
            let device = try await Fixtures.device(store, owner: ann.id)
            let deviceToken = "device-token-\(device.id.rawValue)"
            #expect(try await store.insertImportToken(tokenHash: "import-1", deviceID: device.id, ownerID: ann.id, createdAt: Fixtures.t0,
                                                      expiresAt: Fixtures.t0 + 1_000, keepPerDevice: 10))
            #expect(try await store.setDisabled(userID: ann.id, true, now: Fixtures.t0))
            #expect(try store.user(id: ann.id)?.isDisabled == true)
            #expect(try store.session(tokenHash: "session-ann") == nil && store.sessions(userID: ann.id).isEmpty)
            #expect(try store.deviceCredential(tokenHash: deviceToken) == nil)
            #expect(try store.importTokenDevice(tokenHash: "import-1", now: Fixtures.t0) == nil)
            // A session made after the account was disabled (a sign-in that was under way) does not work either.
            let late = Session(id: .generate(), userID: ann.id, createdAt: Fixtures.time(Fixtures.t0), lastUsedAt: Fixtures.time(Fixtures.t0), client: nil)
            try await store.createSession(late, tokenHash: "session-late", keepAtMost: 10)
            #expect(try store.session(tokenHash: "session-late") == nil)
            #expect(try await !store.insertImportToken(tokenHash: "import-2", deviceID: device.id, ownerID: ann.id, createdAt: Fixtures.t0,
                                                       expiresAt: Fixtures.t0 + 1_000, keepPerDevice: 10))
            #expect(try await store.setDisabled(userID: ann.id, false, now: Fixtures.t0))
            #expect(try store.user(id: ann.id)?.isDisabled == false)
            #expect(try store.deviceCredential(tokenHash: deviceToken)?.0 == device.id)
            #expect(try store.session(tokenHash: "session-late") == late)
            // The import token went with the disabling.
            #expect(try store.importTokenDevice(tokenHash: "import-1", now: Fixtures.t0) == nil)
            #expect(try await !store.setDisabled(userID: .generate(), true, now: Fixtures.t0))
            #expect(try await store.setAdmin(userID: ann.id, false))
            #expect(try store.user(id: ann.id)?.isAdmin == false)
            #expect(try await store.setAdmin(userID: ann.id, true))
            #expect(try store.accounts().first?.isAdmin == true)
            #expect(try await !store.setAdmin(userID: .generate(), true))
        }
    }

    @Test(arguments: StoreFactory.all)
    func anImportTokenIsUsedOnceForItsDeviceBeforeItExpires(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let (ann, device) = (world.owner.id, world.device.id)
            func insert(_ hash: String, at time: Int64, device: DeviceID = device, owner: UserID = ann) async throws -> Bool {
                try await store.insertImportToken(tokenHash: hash, deviceID: device, ownerID: owner, createdAt: time, expiresAt: time + 1_000,
                                                  keepPerDevice: 2)
            }
            // Only for the owner's device.
            #expect(try await !insert("wrong", at: Fixtures.t0, owner: world.viewer.id))
            #expect(try await !insert("gone", at: Fixtures.t0, device: .generate()))
            #expect(try await insert("one", at: Fixtures.t0))
            #expect(try store.importTokenDevice(tokenHash: "one", now: Fixtures.t0 + 999).map { [$0.0.rawValue, $0.1.rawValue] } == [device.rawValue, ann.rawValue])
            #expect(try store.importTokenDevice(tokenHash: "one", now: Fixtures.t0 + 1_000) == nil)
            #expect(try await store.redeemImportToken(tokenHash: "one", deviceID: world.viewerDevice.id, now: Fixtures.t0) == nil)
            #expect(try await store.redeemImportToken(tokenHash: "one", deviceID: device, now: Fixtures.t0) == ann)
            #expect(try await store.redeemImportToken(tokenHash: "one", deviceID: device, now: Fixtures.t0) == nil)
            #expect(try await insert("late", at: Fixtures.t0))
            #expect(try await store.redeemImportToken(tokenHash: "late", deviceID: device, now: Fixtures.t0 + 1_000) == nil)
            // A device keeps its newest tokens.
            #expect(try await insert("a", at: Fixtures.t0 + 1))
            #expect(try await insert("b", at: Fixtures.t0 + 2))
            #expect(try await insert("c", at: Fixtures.t0 + 3))
            #expect(try ["late", "a", "b", "c"].map { try store.importTokenDevice(tokenHash: $0, now: Fixtures.t0 + 3) != nil } == [false, false, true, true])
            // Deleting the device deletes its tokens.
            try await store.writeDirectory { tx in try tx.deleteDevice(id: device) }
            #expect(try store.importTokenDevice(tokenHash: "c", now: Fixtures.t0 + 3) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func expiredGrantsAreDeleted(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await store.insertInviteCode(codeHash: "old", createdAt: Fixtures.t0, expiresAt: Fixtures.t0 + 10)
            try await store.insertInviteCode(codeHash: "new", createdAt: Fixtures.t0, expiresAt: Fixtures.t0 + 100)
            try await store.writeDirectory { tx in
                try tx.insertEmailInvitation(groupID: world.group, email: "old@example.org", senderID: world.owner.id, at: Fixtures.t0, expiresAt: Fixtures.t0 + 10)
            }
            _ = try await store.insertImportToken(tokenHash: "old", deviceID: world.device.id, ownerID: world.owner.id, createdAt: Fixtures.t0,
                                                  expiresAt: Fixtures.t0 + 10, keepPerDevice: 10)
            #expect(try await store.deleteExpiredGrants(now: Fixtures.t0 + 10) == 3)
            #expect(try await store.deleteExpiredGrants(now: Fixtures.t0 + 10) == 0)
            _ = try await store.createAccount(Fixtures.account("ann"), admission: .anyone, now: Fixtures.t0)
            _ = try await store.createAccount(Fixtures.account("bob"), admission: .invited(inviteCodeHash: "new"), now: Fixtures.t0 + 50)
        }
    }
}
