import StoreTestSupport
import Testing
import Tracking

/// `SignInRecordStore`: failure records are decided and stored atomically (concurrent attempts,
/// on PostgreSQL from several connections as from several nodes, never pass the bound), refusals
/// store nothing, a success clears the record and remembers the address, an account keeps its
/// most recent addresses only and loses them with itself, and records a day old are dropped.
@Suite("Store conformance: sign-in records")
struct SignInRecordConformance {
    static let t0 = Fixtures.t0
    static let day = SignInThrottle.dayMilliseconds

    @Test(arguments: StoreFactory.all)
    func admissionsAreCountedAndRefusalsStoreNothing(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let throttle = SignInThrottle(failuresPerDay: 10, failuresKeptForKnownAddresses: 2, freeFailures: 3)
            #expect(try store.signInFailures(accountKey: "account-a") == nil)
            for offset in Int64(0)..<3 {
                let decision = try await store.admitSignIn(accountKey: "account-a", fromKnownAddress: false, throttle: throttle, now: Self.t0 + offset)
                #expect(decision == .admit(SignInFailures(count: Int(offset) + 1, lastAttemptAt: Self.t0 + offset)))
            }
            // The fourth waits a second after the third; the refusal changed nothing.
            let refused = try await store.admitSignIn(accountKey: "account-a", fromKnownAddress: false, throttle: throttle, now: Self.t0 + 500)
            #expect(refused == .refuse(retryAfterMilliseconds: 502))
            #expect(try store.signInFailures(accountKey: "account-a") == SignInFailures(count: 3, lastAttemptAt: Self.t0 + 2))
            // A known address is not held back; another key is counted apart.
            #expect(try await store.admitSignIn(accountKey: "account-a", fromKnownAddress: true, throttle: throttle, now: Self.t0 + 500)
                    == .admit(SignInFailures(count: 4, lastAttemptAt: Self.t0 + 500)))
            #expect(try await store.admitSignIn(accountKey: "account-b", fromKnownAddress: false, throttle: throttle, now: Self.t0 + 500)
                    == .admit(SignInFailures(count: 1, lastAttemptAt: Self.t0 + 500)))
            // Taking attempts back: down by one each, and gone at zero.
            try await store.withdrawSignIn(accountKey: "account-a")
            #expect(try store.signInFailures(accountKey: "account-a")?.count == 3)
            try await store.withdrawSignIn(accountKey: "account-b")
            #expect(try store.signInFailures(accountKey: "account-b") == nil)
            try await store.withdrawSignIn(accountKey: "account-never")
            #expect(try store.signInFailures(accountKey: "account-never") == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func concurrentAttemptsNeverPassTheBound(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            // No delays: only the daily bound (8 from unknown addresses) holds them back.
            let throttle = SignInThrottle(failuresPerDay: 10, failuresKeptForKnownAddresses: 2, freeFailures: 100)
            let decisions = try await withThrowingTaskGroup(of: SignInThrottle.Decision.self) { group in
                for _ in 0..<24 {
                    group.addTask { try await store.admitSignIn(accountKey: "crowded", fromKnownAddress: false, throttle: throttle, now: Self.t0) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let admitted = decisions.compactMap { decision -> Int? in
                if case .admit(let record) = decision { return record.count }
                return nil
            }
            #expect(admitted.sorted() == Array(1...8))
            #expect(decisions.filter { $0 == .refuse(retryAfterMilliseconds: Self.day) }.count == 16)
            #expect(try store.signInFailures(accountKey: "crowded") == SignInFailures(count: 8, lastAttemptAt: Self.t0))
        }
    }

    @Test(arguments: StoreFactory.all)
    func aSuccessClearsTheRecordAndRemembersTheMostRecentAddresses(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let ann = try await Fixtures.user(store, "ann")
            let bob = try await Fixtures.user(store, "bob")
            let throttle = SignInThrottle()
            _ = try await store.admitSignIn(accountKey: "ann-key", fromKnownAddress: false, throttle: throttle, now: Self.t0)
            try await store.recordSignInSuccess(accountKey: "ann-key", userID: ann.id, addressKey: "address-1", now: Self.t0, keep: 2)
            #expect(try store.signInFailures(accountKey: "ann-key") == nil)
            #expect(try store.isKnownSignInAddress("address-1", userID: ann.id))
            #expect(try !store.isKnownSignInAddress("address-1", userID: bob.id))
            #expect(try !store.isKnownSignInAddress("address-2", userID: ann.id))
            // Two more addresses with keep 2: the least recent goes; signing in again from one
            // makes it recent.
            try await store.recordSignInSuccess(accountKey: "ann-key", userID: ann.id, addressKey: "address-2", now: Self.t0 + 1, keep: 2)
            try await store.recordSignInSuccess(accountKey: "ann-key", userID: ann.id, addressKey: "address-1", now: Self.t0 + 2, keep: 2)
            try await store.recordSignInSuccess(accountKey: "ann-key", userID: ann.id, addressKey: "address-3", now: Self.t0 + 3, keep: 2)
            #expect(try [1, 2, 3].map { try store.isKnownSignInAddress("address-\($0)", userID: ann.id) } == [true, false, true])
            // The addresses go with the account.
            try await store.writeDirectory { tx in try tx.deleteUser(id: ann.id) }
            #expect(try !store.isKnownSignInAddress("address-1", userID: ann.id))
        }
    }

    @Test(arguments: StoreFactory.all)
    func recordsADayOldAreDroppedByLaterAdmissions(_ factory: StoreFactory) async throws {
        try await factory.withStore { (store: any TrackingStore) async throws in
            let throttle = SignInThrottle()
            for key in ["old-1", "old-2", "old-3"] {
                _ = try await store.admitSignIn(accountKey: key, fromKnownAddress: false, throttle: throttle, now: Self.t0)
            }
            _ = try await store.admitSignIn(accountKey: "recent", fromKnownAddress: false, throttle: throttle, now: Self.t0 + 1)
            _ = try await store.admitSignIn(accountKey: "new", fromKnownAddress: false, throttle: throttle, now: Self.t0 + Self.day)
            #expect(try ["old-1", "old-2", "old-3"].allSatisfy { try store.signInFailures(accountKey: $0) == nil })
            #expect(try store.signInFailures(accountKey: "recent")?.count == 1)
            // A record past its day starts afresh when its key tries again.
            #expect(try await store.admitSignIn(accountKey: "recent", fromKnownAddress: false, throttle: throttle, now: Self.t0 + 1 + Self.day)
                    == .admit(SignInFailures(count: 1, lastAttemptAt: Self.t0 + 1 + Self.day)))
        }
    }
}
