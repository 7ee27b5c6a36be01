import Tracking

/// The newest fix of a device (`deviceKey`) a group with `windows` may see, given its newest fix
/// `last` and its `history_version` in this snapshot: each store's `SharedLatest` reads (they
/// keep a cache keyed by the store), handed to the statements written once that need them.
public typealias SharedLatestRead = (_ deviceKey: Int64, _ last: SharedLatest.Shown?, _ windows: HistoryWindows,
                                     _ version: Int64) throws -> SharedLatest.Shown?

/// A statement that must give a row gave none (a store's fault, never a client's).
public struct MissingRow: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
