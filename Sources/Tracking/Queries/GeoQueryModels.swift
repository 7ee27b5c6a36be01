import GeoKit
import GeoQuery

/// Which positions a query looks at: each device's latest, or its history in a time range.
public enum QueryScope: Sendable, Equatable {
    case latest
    /// Fixes with `from <= timestamp <= to` (milliseconds; nil = unbounded).
    case history(from: Int64?, to: Int64?)
}

/// A geo query over the positions a caller may read in one group.
public struct GeoQueryRequest: Sendable {
    public let filter: GeoFilter
    public let scope: QueryScope
    /// 1…10,000.
    public let limit: Int
    public let explain: Bool

    public static let defaultLimit = 100
    public static let maxLimit = 10_000

    public init(filter: GeoFilter, scope: QueryScope = .latest, limit: Int = defaultLimit, explain: Bool = false) {
        self.filter = filter
        self.scope = scope
        self.limit = limit
        self.explain = explain
    }
}

/// One matching position. `distance` is in the query's units (meters, or radians for legacy
/// `$nearSphere` pairs) and present for `$near` only. `timestamp` stays bare milliseconds since
/// 1970 like the index entries it comes from (a `Timestamp` would be free, but the engine
/// benchmark, not part of this change, reads it as `Int64`).
public struct GeoQueryResult: Sendable, Equatable {
    public let deviceID: DeviceID
    public let userID: UserID
    public let longitude: Double
    public let latitude: Double
    public let timestamp: Int64
    public let distance: Double?
}

/// How a query ran. Every field depends only on what the caller may read: other groups',
/// non-sharing members' and out-of-period entries are skipped before they are counted, and
/// the search's choices (cells refined, scanned) follow readable entries alone. (No timing
/// field: time is the one thing other data can change.)
public struct QueryExplain: Sendable {
    public var scope = "latest"
    public var cellsInCovering = 0
    public var ranges = 0
    public var keysExamined = 0
    public var docsExamined = 0
    /// For `$near`: coarse cells probed for entries before being split.
    public var cellsProbed = 0
    /// The scanned cells (the covering; for `$near` the cells the search scanned), in order.
    public var coveringCells: [CellID] = []
    /// Tokens of `coveringCells` (made only when an explain is written).
    public var coveringTokens: [String] { coveringCells.map(\.token) }

    public init() {}
}
