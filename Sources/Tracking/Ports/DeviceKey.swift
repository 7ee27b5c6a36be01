/// A store's compact handle for a device (the SQLite store's integer `devices.key`), so index
/// entries and export cursors need not carry the public id. Opaque to the domain: it only
/// compares and groups by it; only the store that issued a key interprets its value.
public struct DeviceKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The store's own value; meaningful only to that store.
    public let storeValue: Int64

    public init(storeValue: Int64) { self.storeValue = storeValue }

    public static func < (a: DeviceKey, b: DeviceKey) -> Bool { a.storeValue < b.storeValue }
    public var description: String { "device#\(storeValue)" }
}
