/// The readable devices of a query by key, for the one lookup every index entry costs: an
/// open-addressing table (multiplicative hashing, linear probing, at most half full) instead of
/// a `Dictionary` and its `Hasher`, with each device's windows' bounds beside it so that the
/// time test of a device with one window (nearly all) is two comparisons.
///
/// Built once per cached ``SharingDevices`` (the group's sharing devices at one visibility
/// version), or per query when a time range clips the devices' windows.
struct ReadableDeviceTable: Sendable {
    /// The devices, in no particular order; lookups give indices into it.
    let devices: [SharedDevice]
    /// Per device: the first and last instant of its windows (ms; `Int64.min...Int64.max` for
    /// ``HistoryWindows/isAll``), and whether they are one window, so that the bounds decide.
    private let spans: [(first: Int64, last: Int64, isOneWindow: Bool)]
    /// Per slot: the device key's store value (meaningful where `slots` is not 0).
    private let keys: [Int64]
    /// Per slot: the index of the device in `devices` plus one; 0 for an empty slot.
    private let slots: [Int32]
    /// 64 − log2(slot count): the multiplicative hash keeps the top bits.
    private let shift: UInt64

    init(_ devices: some Sequence<SharedDevice>) {
        let devices = Array(devices)
        var slotCount = 8
        while slotCount < 2 * devices.count { slotCount *= 2 }
        var keys = [Int64](repeating: 0, count: slotCount)
        var slots = [Int32](repeating: 0, count: slotCount)
        let shift = UInt64(64 - slotCount.trailingZeroBitCount)
        var kept: [SharedDevice] = []
        kept.reserveCapacity(devices.count)
        for device in devices {
            var slot = Self.home(of: device.key.storeValue, shift: shift)
            while slots[slot] != 0 && keys[slot] != device.key.storeValue { slot = (slot &+ 1) & (slotCount &- 1) }
            guard slots[slot] == 0 else { continue }  // a key seen already: the first one stays
            kept.append(device)
            keys[slot] = device.key.storeValue
            slots[slot] = Int32(truncatingIfNeeded: kept.count)
        }
        self.devices = kept
        self.keys = keys
        self.slots = slots
        self.shift = shift
        spans = kept.map { device in
            let intervals = device.windows.intervals
            guard let first = intervals.first, let last = intervals.last else { return (1, 0, true) }  // none: nothing passes
            return (first.lowerBound, last.upperBound, intervals.count == 1)
        }
    }

    private static func home(of key: Int64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The index in ``devices`` of the device with `key`, or nil.
    func index(of key: DeviceKey) -> Int? {
        let mask = slots.count &- 1
        var slot = Self.home(of: key.storeValue, shift: shift)
        while true {
            let entry = slots[slot]
            if entry == 0 { return nil }
            if keys[slot] == key.storeValue { return Int(entry) &- 1 }
            slot = (slot &+ 1) & mask
        }
    }

    /// Whether the fix at `timestamp` of the device at `index` is inside its windows.
    func isVisible(_ index: Int, at timestamp: Int64) -> Bool {
        let span = spans[index]
        guard span.first <= timestamp && timestamp <= span.last else { return false }
        return span.isOneWindow || devices[index].windows.contains(timestamp)
    }
}
