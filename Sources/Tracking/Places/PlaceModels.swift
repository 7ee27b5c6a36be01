import JSONCore
import Timestamps

/// A place (geofence) of a group, as stored.
public struct Place: Sendable, Equatable {
    public let id: PlaceID
    public let groupID: GroupID
    /// 1–100 characters, trimmed, no control characters.
    public var name: String
    /// The GeoJSON geometry as the client sent it: a Point (with `radiusMeters`) or a Polygon.
    public var geometry: JSONValue
    /// The circle's radius in meters (25–50,000); nil for a polygon.
    public var radiusMeters: Double?
    public let createdBy: UserID
    public let createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(id: PlaceID, groupID: GroupID, name: String, geometry: JSONValue, radiusMeters: Double?,
                createdBy: UserID, createdAt: Timestamp, updatedAt: Timestamp) {
        self.id = id
        self.groupID = groupID
        self.name = name
        self.geometry = geometry
        self.radiusMeters = radiusMeters
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The place's region, parsed again from its stored geometry.
    public func shape() throws -> PlaceShape {
        PlaceShape(region: try PlaceRegion.parse(geometry: geometry, radius: radiusMeters.map { .number(JSONNumber($0)) }))
    }
}

/// A place with the devices remembered inside it (of members who share now).
public struct PlaceWithPresence: Sendable, Equatable {
    public let place: Place
    /// Device ids in id order.
    public let inside: [DeviceID]

    public init(place: Place, inside: [DeviceID]) {
        self.place = place
        self.inside = inside
    }
}

/// The limits on places that are settings.
public struct PlaceLimits: Sendable {
    /// Places one group may have (409 `too_many_places` beyond).
    public var placesPerGroup = 100
    /// Positions a polygon place may have, all rings together (400 `too_many_vertices` beyond).
    public var verticesPerPolygon = 1_000

    public init() {}
}
