/// A position as clients send it and the API returns it: longitude and latitude in degrees
/// (WGS84), kept exactly as given.
///
/// `LatLng` holds radians, so a position taken through it does not come back bit for bit
/// (11.5755° can return as 11.575500000000002°); stored fixes and latest locations therefore
/// hold this value, and ``latLng`` converts for the index and the geometry. Validity (|lon| ≤ 180,
/// |lat| ≤ 90, finite) is checked where positions enter (`FixCheck`), not here.
@frozen
public struct GeoPosition: Sendable, Hashable, CustomStringConvertible {
    /// Degrees east, −180…180 for a validated position.
    public var longitude: Double
    /// Degrees north, −90…90 for a validated position.
    public var latitude: Double

    @inlinable
    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }

    /// The position for the cell index and the sphere math (radians, converted like S2).
    @inlinable
    public var latLng: LatLng { LatLng(degreesLatitude: latitude, longitude: longitude) }

    /// `[longitude, latitude]`, GeoJSON's order.
    public var description: String { "[\(longitude), \(latitude)]" }
}
