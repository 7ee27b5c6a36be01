import Foundation
import HTTPServer
import Synchronization
import Tracking

extension TestApp {
    /// Where `wait` runs its task: not the cooperative pool, whose two threads the waiting
    /// tests may be blocking.
    static let waitExecutor = HandlerExecutor(label: "fod.test.wait")

    /// Runs `body` to completion from synchronous test code.
    func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        Task(executorPreference: Self.waitExecutor) {
            do { let value = try await body(); result.value.withLock { $0 = .success(value) } } catch { result.value.withLock { $0 = .failure(error) } }
            done.signal()
        }
        done.wait()
        guard let outcome = result.value.withLock({ $0 }) else { throw TestFailure("no result") }
        return try outcome.get()
    }

    /// A share link of `deviceID` made `ageSeconds` ago with a lifetime of `lifetimeSeconds`
    /// (so it expired `ageSeconds − lifetimeSeconds` seconds ago when that is positive): the
    /// service's clock seam, since no request can make a link in the past.
    func expiredShare(deviceID: String, ownerID: String, ageSeconds: Int64 = 7_200, lifetimeSeconds: Int64 = 3_600) throws -> (id: String, token: String) {
        let shares = services.shares
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let (share, token) = try wait {
            try await shares.create(deviceID: DeviceID(deviceID), ownerID: UserID(ownerID), name: "old",
                                    lifetimeSeconds: lifetimeSeconds, now: now - ageSeconds * 1000)
        }
        return (share.id.rawValue, token)
    }
}

/// Where a task leaves its result for a waiting thread.
final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<Result<T, Error>?>(nil)
}
