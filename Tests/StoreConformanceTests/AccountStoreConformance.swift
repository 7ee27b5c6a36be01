import StoreTestSupport
import Testing
import Tracking

/// `AccountStore`: users, sessions and their limits.
@Suite("Store conformance: accounts")
struct AccountStoreConformance {
    @Test(arguments: StoreFactory.all)
    func aUserIsFoundByIdAndEmailAndEmailsAreUnique(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            #expect(try store.user(id: ann.id) == ann)
            let (found, hash) = try #require(try store.userWithPasswordHash(email: ann.email))
            #expect(found == ann && hash == "hash-ann")
            #expect(try store.userWithPasswordHash(email: "nobody@example.org") == nil)
            #expect(try store.user(id: .generate()) == nil)

            let twin = User(id: .generate(), email: ann.email, displayName: "twin", createdAt: Fixtures.time(Fixtures.t0))
            let session = Session(id: .generate(), userID: twin.id, createdAt: Fixtures.time(Fixtures.t0), lastUsedAt: Fixtures.time(Fixtures.t0), client: nil)
            let error = await #expect(throws: TrackingError.self) {
                try await store.createUser(twin, passwordHash: "x", session: session, tokenHash: "twin-token")
            }
            #expect(error?.code == .emailTaken)
            // Atomic: the refused sign-up left neither the user nor its session.
            #expect(try store.user(id: twin.id) == nil)
            #expect(try store.session(tokenHash: "twin-token") == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func sessionsAreListedNewestFirstAndTheOldestBeyondTheLimitGo(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let first = try #require(try store.sessions(userID: ann.id).first)
            var made: [Session] = [first]
            for minute in 1...4 {
                let time = Fixtures.t0 + Int64(minute) * 60_000
                let session = Session(id: .generate(), userID: ann.id, createdAt: Fixtures.time(time), lastUsedAt: Fixtures.time(time), client: "client \(minute)")
                try await store.createSession(session, tokenHash: "t\(minute)", keepAtMost: 3)
                made.append(session)
            }
            #expect(try store.sessions(userID: ann.id) == Array(made.suffix(3).reversed()))
            #expect(try store.session(tokenHash: "t4") == made[4])
            #expect(try store.session(tokenHash: "t1") == nil)
            #expect(try store.session(tokenHash: "token-\(first.id.rawValue)") == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func touchingASessionNeverMovesItsLastUseBack(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let session = try #require(try store.sessions(userID: ann.id).first)
            try await store.touchSession(id: session.id, at: Fixtures.t0 + 120_000)
            try await store.touchSession(id: session.id, at: Fixtures.t0 + 60_000)
            #expect(try store.sessions(userID: ann.id).first?.lastUsedAt == Fixtures.time(Fixtures.t0 + 120_000))
        }
    }

    @Test(arguments: StoreFactory.all)
    func sessionsAreDeletedByTokenByOwnerAndByAge(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let bob = try await Fixtures.user(store, "bob")
            let annSession = try #require(try store.sessions(userID: ann.id).first)
            let bobSession = try #require(try store.sessions(userID: bob.id).first)
            // Only its owner deletes a session by id.
            #expect(try await !store.deleteSession(id: annSession.id, userID: bob.id))
            #expect(try await store.deleteSession(id: annSession.id, userID: ann.id))
            #expect(try await !store.deleteSession(id: annSession.id, userID: ann.id))
            #expect(try await store.deleteSession(tokenHash: "token-\(bobSession.id.rawValue)"))
            #expect(try await !store.deleteSession(tokenHash: "token-\(bobSession.id.rawValue)"))

            let old = Session(id: .generate(), userID: ann.id, createdAt: Fixtures.time(Fixtures.t0 - 10_000), lastUsedAt: Fixtures.time(Fixtures.t0), client: nil)
            let idle = Session(id: .generate(), userID: ann.id, createdAt: Fixtures.time(Fixtures.t0), lastUsedAt: Fixtures.time(Fixtures.t0 - 10_000), client: nil)
            let fresh = Session(id: .generate(), userID: ann.id, createdAt: Fixtures.time(Fixtures.t0), lastUsedAt: Fixtures.time(Fixtures.t0), client: nil)
            for (session, token) in [(old, "old"), (idle, "idle"), (fresh, "fresh")] {
                try await store.createSession(session, tokenHash: token, keepAtMost: 10)
            }
            #expect(try await store.deleteExpiredSessions(createdBefore: Fixtures.t0 - 5_000, usedBefore: Fixtures.t0 - 5_000) == 2)
            #expect(try store.sessions(userID: ann.id) == [fresh])
        }
    }

    @Test(arguments: StoreFactory.all)
    func renamingReturnsTheUserOrNil(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let renamed = try await store.updateDisplayName(userID: ann.id, displayName: "Ann Z 🛰️")
            #expect(renamed?.displayName == "Ann Z 🛰️")
            #expect(try store.user(id: ann.id)?.displayName == "Ann Z 🛰️")
            #expect(try await store.updateDisplayName(userID: .generate(), displayName: "x") == nil)
        }
    }
}
