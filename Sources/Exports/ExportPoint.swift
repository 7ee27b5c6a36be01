/// One location fix as the export writers consume it: who (device and user), where and when,
/// and every other stored field (the NDJSON export writes them all, GPX most of them).
///
/// Coordinates are WGS84 degrees, as stored (`[longitude, latitude]` order on output).
/// A point is *writable* when both coordinates are finite with |latitude| ≤ 90 and
/// |longitude| ≤ 180; every writer skips other points (counting them in `skippedPointCount`)
/// rather than emitting invalid output. A non-finite measurement is treated as unknown.
public struct ExportPoint: Sendable, Equatable {
    /// The device's opaque id.
    public var deviceID: String
    /// The device's name as its owner set it.
    public var deviceName: String
    /// The owning user's opaque id.
    public var userID: String
    /// The owning user's display name.
    public var displayName: String
    /// Longitude in degrees, positive east, in [-180, 180].
    public var longitude: Double
    /// Latitude in degrees, positive north, in [-90, 90].
    public var latitude: Double
    /// When the fix was taken, in milliseconds since 1970-01-01T00:00:00Z.
    public var timestamp: Int64
    /// Altitude in meters above the WGS84 ellipsoid (or as the device reported it), when known.
    public var altitude: Double?
    /// The stored measurements other than altitude, and the client's id of the fix.
    public var details: ExportPointDetails

    public init(
        deviceID: String, deviceName: String, userID: String, displayName: String,
        longitude: Double, latitude: Double, timestamp: Int64, altitude: Double? = nil,
        details: ExportPointDetails = ExportPointDetails()
    ) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.userID = userID
        self.displayName = displayName
        self.longitude = longitude
        self.latitude = latitude
        self.timestamp = timestamp
        self.altitude = altitude
        self.details = details
    }

    /// Whether the coordinates are finite and within [-180, 180] × [-90, 90] degrees.
    public var hasValidCoordinates: Bool {
        longitude.isFinite && latitude.isFinite
            && longitude.magnitude <= 180 && latitude.magnitude <= 90
    }

    /// The altitude in meters when it is known and finite.
    var knownAltitude: Double? {
        guard let altitude, altitude.isFinite else { return nil }
        return altitude
    }
}

/// The fields of a stored fix beyond its position, time and altitude, in the server's units;
/// nil when the fix has none (a non-finite value is written as unknown).
public struct ExportPointDetails: Sendable, Equatable {
    /// Horizontal accuracy radius, meters.
    public var accuracy: Double?
    /// Meters per second.
    public var speed: Double?
    /// Direction of travel, degrees clockwise from true north.
    public var heading: Double?
    /// Battery charge, percent.
    public var battery: Double?
    /// The client's own id of the fix (or the one an import derived).
    public var clientID: String?

    public init(accuracy: Double? = nil, speed: Double? = nil, heading: Double? = nil, battery: Double? = nil, clientID: String? = nil) {
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
        self.battery = battery
        self.clientID = clientID
    }
}

/// An error from the Exports module (currently only from reading basemap GeoJSON).
///
/// Match on `code`; new codes may be added without breaking callers.
public struct ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The basemap bytes are not JSON, or not a GeoJSON FeatureCollection of polygons.
        public static let invalidBasemap = Code("invalid_basemap")

        /// A snake_case name for logs.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A human sentence saying what is wrong, e.g. `basemap feature 3: polygon ring has 2 positions`.
    public let message: String

    /// The basemap could not be read.
    public static func invalidBasemap(_ reason: String) -> ExportError {
        ExportError(code: .invalidBasemap, message: reason)
    }

    public var description: String { "\(code): \(message)" }
}
