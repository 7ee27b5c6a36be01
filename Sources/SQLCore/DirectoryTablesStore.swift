import Tracking

/// A store whose directory transactions are its place transactions (one type over its
/// connection, `DirectoryTablesTransaction` and `PlaceTablesTransaction`): `DirectoryStore`'s
/// transactions and `PlaceStore`'s plain write are written here once over the two it gives.
public protocol DirectoryTablesStore: DirectoryStore, PlaceStore {
    /// Runs `body` in a write transaction; returns once it is durable. `onCommit` runs right
    /// after the commit, once the membership events `body` logged are announced.
    func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T,
                                  onCommit: @escaping @Sendable (T) -> Void) async throws -> T
}

extension DirectoryTablesStore {
    public func readDirectory<T>(_ body: (any DirectoryTransaction) throws -> T) throws -> T {
        try readPlaces { try body($0) }
    }

    public func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T) async throws -> T {
        try await writePlaces({ try body($0) }, onCommit: { _ in })
    }

    public func writeDirectory<T: Sendable>(_ body: @escaping @Sendable (any DirectoryTransaction) throws -> T,
                                            onCommit: @escaping @Sendable (T) -> Void) async throws -> T {
        try await writePlaces({ try body($0) }, onCommit: onCommit)
    }

    public func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T) async throws -> T {
        try await writePlaces(body, onCommit: { _ in })
    }
}
