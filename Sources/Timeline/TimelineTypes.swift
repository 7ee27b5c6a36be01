import GeoKit

/// A position on the Earth in degrees, GeoJSON order (`[longitude, latitude]`): the one
/// position type, GeoKit's.
public typealias TimelinePoint = GeoPosition

/// One fix as the segmenter needs it: time (milliseconds since 1970 UTC), position (degrees) and
/// horizontal accuracy (meters, nil when unknown).
public struct TimelineFix: Sendable, Equatable {
    public var timestamp: Int64
    public var longitude: Double
    public var latitude: Double
    public var accuracy: Double?

    public init(timestamp: Int64, longitude: Double, latitude: Double, accuracy: Double? = nil) {
        self.timestamp = timestamp
        self.longitude = longitude
        self.latitude = latitude
        self.accuracy = accuracy
    }
}

/// A time the device kept within `radius` of `location`.
public struct Stay: Sendable, Equatable {
    /// Time of the first and last fix of the stay, milliseconds since 1970 UTC.
    public var start: Int64
    public var end: Int64
    /// The accuracy-weighted centre of the stay's fixes.
    public var location: TimelinePoint
    /// Meters: the farthest member fix from the centre (an upper bound after merges);
    /// at most `stayRadius` plus the accuracy allowance (see `TimelineSegmenter`).
    public var radius: Double
    /// Fixes within the stay's time span, outliers it absorbed included.
    public var fixes: Int

    public init(start: Int64, end: Int64, location: TimelinePoint, radius: Double, fixes: Int) {
        self.start = start
        self.end = end
        self.location = location
        self.radius = radius
        self.fixes = fixes
    }
}

/// Movement between stays (or between gaps).
public struct Trip: Sendable, Equatable {
    /// Milliseconds since 1970 UTC: the end of the stay before it (else its first fix) and the
    /// start of the stay after it (else its last fix).
    public var start: Int64
    public var end: Int64
    /// Moving fixes in the trip (0 when the device was seen at one stay and next at another).
    public var fixes: Int
    /// Meters along the path: from the previous stay's centre through every fix to the next
    /// stay's centre, on MongoDB's sphere (R = 6,378,100 m).
    public var distance: Double
    /// Meters per second: `distance` over `end − start` (0 for a trip without duration).
    public var averageSpeed: Double
    public var from: TimelinePoint
    public var to: TimelinePoint

    public init(start: Int64, end: Int64, fixes: Int, distance: Double, averageSpeed: Double, from: TimelinePoint, to: TimelinePoint) {
        self.start = start
        self.end = end
        self.fixes = fixes
        self.distance = distance
        self.averageSpeed = averageSpeed
        self.from = from
        self.to = to
    }
}

/// A stay or a trip, oldest first in a timeline.
public enum TimelineSegment: Sendable, Equatable {
    case stay(Stay)
    case trip(Trip)

    public var start: Int64 {
        switch self {
        case .stay(let s): s.start
        case .trip(let t): t.start
        }
    }

    public var end: Int64 {
        switch self {
        case .stay(let s): s.end
        case .trip(let t): t.end
        }
    }

    /// Fixes the segment covers.
    public var fixes: Int {
        switch self {
        case .stay(let s): s.fixes
        case .trip(let t): t.fixes
        }
    }
}

/// The knobs of the segmentation. The defaults are the contract's (`stayRadius` 100 m,
/// `stayMinutes` 5, a 60-minute gap ends a trip); the others have documented defaults.
public struct TimelineParameters: Sendable, Equatable {
    /// Meters (10…10,000): a stay keeps within this distance of its centre.
    public var stayRadius: Double
    /// Minutes (1…1,440): the shortest stay.
    public var stayMinutes: Double
    /// Minutes without fixes that end a trip (default 60).
    public var maxGapMinutes: Double
    /// Hours: a stay survives a silent gap up to this long when the device reappears inside it
    /// (phones stop reporting while still; default 24).
    public var maxStayGapHours: Double
    /// Meters: fixes less accurate than this are ignored (default 250).
    public var maxAccuracy: Double
    /// Consecutive fixes outside a stay that are still taken for noise when the next fix is back
    /// inside (default 2).
    public var maxOutlierFixes: Int

    public init(stayRadius: Double = 100, stayMinutes: Double = 5, maxGapMinutes: Double = 60,
                maxStayGapHours: Double = 24, maxAccuracy: Double = 250, maxOutlierFixes: Int = 2) {
        self.stayRadius = stayRadius
        self.stayMinutes = stayMinutes
        self.maxGapMinutes = maxGapMinutes
        self.maxStayGapHours = maxStayGapHours
        self.maxAccuracy = maxAccuracy
        self.maxOutlierFixes = max(0, maxOutlierFixes)
    }

    public static let stayRadiusRange: ClosedRange<Double> = 10...10_000
    public static let stayMinutesRange: ClosedRange<Double> = 1...1_440

    /// Parameters from a request's `stayRadius` / `stayMinutes` (nil: the default), checked
    /// against `stayRadiusRange` and `stayMinutesRange`.
    public static func validated(stayRadius: Double?, stayMinutes: Double?) throws(TimelineParameterError) -> TimelineParameters {
        var parameters = TimelineParameters()
        if let stayRadius {
            guard stayRadiusRange.contains(stayRadius) else { throw TimelineParameterError(field: "stayRadius", range: stayRadiusRange, unit: "meters") }
            parameters.stayRadius = stayRadius
        }
        if let stayMinutes {
            guard stayMinutesRange.contains(stayMinutes) else { throw TimelineParameterError(field: "stayMinutes", range: stayMinutesRange, unit: "minutes") }
            parameters.stayMinutes = stayMinutes
        }
        return parameters
    }

    var stayMilliseconds: Int64 { Self.milliseconds(stayMinutes * 60_000) }
    var maxGapMilliseconds: Int64 { Self.milliseconds(maxGapMinutes * 60_000) }
    var maxStayGapMilliseconds: Int64 { Self.milliseconds(maxStayGapHours * 3_600_000) }

    /// A duration clamped to 0…10¹⁵ ms (NaN counts as 0), so any parameter converts safely.
    static func milliseconds(_ value: Double) -> Int64 {
        guard value.isFinite else { return value > 0 ? 1_000_000_000_000_000 : 0 }
        return Int64(Swift.max(0, Swift.min(value, 1e15)))
    }
}

/// A timeline parameter out of its range: `code` `invalid_parameter`, a message naming it.
public struct TimelineParameterError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code = "invalid_parameter"
    public let message: String

    init(field: String, range: ClosedRange<Double>, unit: String) {
        message = "\(field) must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)) (\(unit))"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && value.magnitude < 1e15 ? String(Int64(value)) : String(value)
    }

    public var description: String { "\(code): \(message)" }
}
