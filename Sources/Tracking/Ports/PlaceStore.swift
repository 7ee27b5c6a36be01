/// Runs place transactions: reads on a snapshot, writes in the next durable group commit.
///
/// Implemented by `SQLiteBackend` and `PostgresStore`.
public protocol PlaceStore: Sendable {
    func readPlaces<T>(_ body: (any PlaceTransaction) throws -> T) throws -> T
    @discardableResult
    func writePlaces<T: Sendable>(_ body: @escaping @Sendable (any PlaceTransaction) throws -> T) async throws -> T
}
