import ErrorCodes

/// One location fix as a client submitted it, already validated.
///
/// Units: degrees (WGS84), milliseconds since 1970-01-01T00:00:00Z, meters, meters per second,
/// degrees clockwise from true north, percent. Optional measurements are `nil` when the client
/// sent none, or sent its "unknown" marker (apps send `-1`; see the format types).
public struct Fix: Sendable, Equatable {
    /// Degrees east, −180…180.
    public var longitude: Double
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Milliseconds since 1970 UTC. When the client sent no time, the `now` given to the parser.
    ///
    /// Bare `Int64`, not a `Timestamp`: fixes are built, deduplicated and buffered for the index
    /// in the ingest loop, whose speed this type was not measured against; the stored fix's
    /// `timestamp` (Tracking's `StoredFix`) is the `Timestamp` view of it.
    public var timestamp: Int64
    /// Whether `timestamp` came from the client (false: it is the parser's `now`).
    public var timestampWasGiven: Bool
    /// Horizontal accuracy radius in meters, 0…`FixRules.maxAccuracy`.
    public var accuracy: Double?
    /// Meters above sea level (or the ellipsoid, as the client measures it), within `FixRules.altitudeRange`.
    public var altitude: Double?
    /// Meters per second, 0…`FixRules.maxSpeed`.
    public var speed: Double?
    /// Direction of travel, degrees clockwise from north, 0…360.
    public var heading: Double?
    /// Battery charge in percent, 0…100.
    public var battery: Double?
    /// The client's own id for this fix (1…`FixRules.maxClientIDBytes` UTF-8 bytes), used to
    /// recognise resends. `nil`: the server falls back to deduplicating by timestamp.
    public var clientID: String?

    public init(longitude: Double, latitude: Double, timestamp: Int64, timestampWasGiven: Bool = true,
                accuracy: Double? = nil, altitude: Double? = nil, speed: Double? = nil,
                heading: Double? = nil, battery: Double? = nil, clientID: String? = nil) {
        self.longitude = longitude
        self.latitude = latitude
        self.timestamp = timestamp
        self.timestampWasGiven = timestampWasGiven
        self.accuracy = accuracy
        self.altitude = altitude
        self.speed = speed
        self.heading = heading
        self.battery = battery
        self.clientID = clientID
    }
}

/// Why a fix or a whole body was refused: a stable snake_case `code` and a human `message`,
/// ready for the API's `{"error": {"code", "message"}}` body (always a 4xx, never a 500).
public struct FixError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// The result of parsing a body that may hold several fixes.
///
/// Indexes are positions in the submitted array (0 for a single-fix body). Both lists are in
/// ascending index order and together cover every submitted fix exactly once.
public struct FixBatch: Sendable {
    /// Valid fixes with their positions.
    public var fixes: [(index: Int, fix: Fix)]
    /// Invalid fixes with their positions and the reason.
    public var rejected: [(index: Int, error: FixError)]
    /// True when the body was a single fix rather than a batch: an invalid single fix should
    /// be answered with 400 and the error itself, a batch with 200 and the `rejected` list.
    public let isSingle: Bool

    public init(fixes: [(index: Int, fix: Fix)] = [], rejected: [(index: Int, error: FixError)] = [], isSingle: Bool) {
        self.fixes = fixes
        self.rejected = rejected
        self.isSingle = isSingle
    }

    /// Number of submitted fixes (valid and rejected).
    public var count: Int { fixes.count + rejected.count }
}

/// Limits every format applies to a fix. The defaults are the server's documented ones.
public struct FixRules: Sendable, Equatable {
    /// How far after `now` a timestamp may lie (default 24 h, for devices with skewed clocks).
    public var maxFutureMilliseconds: Int64
    /// Earliest accepted timestamp (default 2000-01-01T00:00:00Z): older times are almost
    /// always a device clock that was never set (1970, GPS week rollover), not history.
    public var minTimestamp: Int64
    /// Most fixes in one batch body (default 10,000); more is `batch_too_large`.
    public var maxBatch: Int
    /// Largest accuracy radius in meters (default 100 km).
    public var maxAccuracy: Double
    /// Accepted altitudes in meters (default −12,000…100,000: deepest trench to the edge of space).
    public var altitudeRange: ClosedRange<Double>
    /// Fastest accepted speed in m/s (default 1,000 m/s, about 3,600 km/h: faster than any airliner).
    public var maxSpeed: Double
    /// Longest client id in UTF-8 bytes (default 128).
    public var maxClientIDBytes: Int
    /// OsmAnd only: meters of accuracy per unit of HDOP, used when a client sends `hdop` but no
    /// `accuracy` (default 5 m, a typical GPS user-equivalent range error); `nil` ignores `hdop`.
    public var metersPerHDOP: Double?

    public init(maxFutureMilliseconds: Int64 = 86_400_000,
                minTimestamp: Int64 = 946_684_800_000,
                maxBatch: Int = 10_000,
                maxAccuracy: Double = 100_000,
                altitudeRange: ClosedRange<Double> = -12_000...100_000,
                maxSpeed: Double = 1_000,
                maxClientIDBytes: Int = 128,
                metersPerHDOP: Double? = 5) {
        self.maxFutureMilliseconds = maxFutureMilliseconds
        self.minTimestamp = minTimestamp
        self.maxBatch = maxBatch
        self.maxAccuracy = maxAccuracy
        self.altitudeRange = altitudeRange
        self.maxSpeed = maxSpeed
        self.maxClientIDBytes = maxClientIDBytes
        self.metersPerHDOP = metersPerHDOP
    }

    /// The documented defaults.
    public static let standard = FixRules()
}
