import Synchronization

/// How many history imports run at once: per device and in all. An import holds a slot from
/// its admission (before any of its file is read) until it ends, so clients that start imports
/// and then send nothing cannot hold more than the slots (each costs a read buffer, a parser
/// and two batches of fixes).
///
/// Invariants: `0 <= running[d] <= perDevice` for every device, the sum of `running` is
/// `total`-bounded, and a device with no import running has no entry.
public final class ImportSlots: Sendable {
    private struct Counts {
        var byDevice: [DeviceID: Int] = [:]
        var total = 0
    }

    private let counts = Mutex(Counts())
    /// Imports one device may run at once (at least 1).
    public let perDevice: Int
    /// Imports that may run at once in all (at least 1).
    public let total: Int
    /// What a refused client is told to wait (`Retry-After`, seconds).
    static let retryAfterSeconds = 5

    public init(perDevice: Int, total: Int) {
        self.perDevice = max(1, perDevice)
        self.total = max(1, total)
    }

    /// Imports running now.
    public var runningCount: Int { counts.withLock { $0.total } }

    /// A slot for an import into `deviceID`; release it when the import ends.
    /// - Throws: 429 `rate_limited` when the device runs `perDevice` imports already, 503
    ///   `busy` when `total` run in all (both with `Retry-After`).
    public func claim(_ deviceID: DeviceID) throws -> ImportSlot {
        let refusal = counts.withLock { c -> TrackingError? in
            let device = c.byDevice[deviceID] ?? 0
            if device >= perDevice {
                return TrackingError(.rateLimited, code: .rateLimited,
                                     message: "this device already runs \(perDevice) history import(s); send the next once one ended",
                                     retryAfterSeconds: Self.retryAfterSeconds)
            }
            if c.total >= total { return .busy("history imports", retryAfter: Self.retryAfterSeconds) }
            c.byDevice[deviceID] = device + 1
            c.total += 1
            return nil
        }
        if let refusal { throw refusal }
        return ImportSlot(slots: self, deviceID: deviceID)
    }

    fileprivate func release(_ deviceID: DeviceID) {
        counts.withLock { c in
            let remaining = (c.byDevice[deviceID] ?? 1) - 1
            c.byDevice[deviceID] = remaining > 0 ? remaining : nil
            c.total -= 1
        }
    }
}

/// One running import's place in `ImportSlots`: given back once, by `release()` or, failing
/// that, when the last reference goes.
public final class ImportSlot: Sendable {
    private let slots: ImportSlots
    private let deviceID: DeviceID
    private let released = Atomic<Bool>(false)

    fileprivate init(slots: ImportSlots, deviceID: DeviceID) {
        self.slots = slots
        self.deviceID = deviceID
    }

    deinit { release() }

    /// Gives the slot back (later calls do nothing).
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        slots.release(deviceID)
    }
}
