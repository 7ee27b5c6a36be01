import JSONCore
import Timestamps

/// Places (geofences) of a group: API.md, "Places (geofences) and arrivals".
///
/// - Any member creates places and reads them (with who is inside); a non-member gets 404
///   (the group's existence stays hidden).
/// - Only the place's creator or the group's owner changes or deletes it; other members 403.
/// - Every check runs inside the transaction that makes the change.
public final class PlaceService: Sendable {
    let store: any PlaceStore
    public let limits: PlaceLimits

    public init(store: any PlaceStore, limits: PlaceLimits = PlaceLimits()) {
        self.store = store
        self.limits = limits
    }

    /// Creates a place; 400 for a bad name or radius, 400/422 for bad geometry (the geo
    /// queries' wording), 409 past `placesPerGroup`.
    public func create(groupID: GroupID, by userID: UserID, name rawName: String, geometry: JSONValue,
                       radius: JSONValue?) async throws -> Place {
        let name = try Validate.name(rawName, field: "name")
        let (shape, radiusMeters) = try self.shape(geometry: geometry, radius: radius)
        let now = Timestamp.now
        let place = Place(id: PlaceID.generate(), groupID: groupID, name: name, geometry: PlaceGeometry.canonical(geometry),
                          radiusMeters: radiusMeters,
                          createdBy: userID, createdAt: now, updatedAt: now)
        let limit = limits.placesPerGroup
        return try await store.writePlaces { tx in
            _ = try GroupService.visibleGroup(groupID, to: userID, in: tx)
            guard try tx.placeCount(groupID: groupID) < limit else {
                throw TrackingError.conflict("a group may have at most \(limit) places", code: .tooManyPlaces)
            }
            try tx.insertPlace(place, shape: shape)
            return place
        }
    }

    /// The group's places with the devices inside each (members only; 404 for others).
    public func places(groupID: GroupID, for userID: UserID) throws -> [PlaceWithPresence] {
        try store.readPlaces { tx in
            _ = try GroupService.visibleGroup(groupID, to: userID, in: tx)
            let inside = try tx.devicesInside(groupID: groupID)
            return try tx.places(groupID: groupID).map { PlaceWithPresence(place: $0, inside: inside[$0.id] ?? []) }
        }
    }

    /// Changes a place's name and/or geometry (`radius` alone resizes a circle). The creator or
    /// the group's owner only (403 for other members, 404 for non-members and unknown places).
    public func update(groupID: GroupID, placeID: PlaceID, by userID: UserID, name rawName: String?,
                       geometry: JSONValue?, radius: JSONValue?) async throws -> Place {
        let name = try rawName.map { try Validate.name($0, field: "name") }
        guard name != nil || geometry != nil || radius != nil else {
            throw TrackingError.invalid("give at least one of name, geometry, radius", code: .emptyChange)
        }
        let limits = self.limits
        return try await store.writePlaces { tx in
            var place = try PlaceService.changeablePlace(placeID, groupID: groupID, by: userID, in: tx)
            var shape: PlaceShape?
            if geometry != nil || radius != nil {
                let newGeometry = geometry ?? place.geometry
                let newRadius: JSONValue? = radius ?? (geometry == nil ? place.radiusMeters.map { .number(JSONNumber($0)) } : nil)
                let parsed = try PlaceService.shape(geometry: newGeometry, radius: newRadius, limits: limits)
                shape = parsed.0
                place.geometry = PlaceGeometry.canonical(newGeometry)
                place.radiusMeters = parsed.1
            }
            if let name { place.name = name }
            place.updatedAt = .now
            try tx.updatePlace(place, shape: shape)
            return place
        }
    }

    /// Deletes a place (the creator or the group's owner); its presence state ends with it.
    public func delete(groupID: GroupID, placeID: PlaceID, by userID: UserID) async throws {
        try await store.writePlaces { tx in
            _ = try PlaceService.changeablePlace(placeID, groupID: groupID, by: userID, in: tx)
            try tx.deletePlace(id: placeID)
        }
    }

    /// The place, when `userID` may change it: 404 unless a member and the place exists in
    /// the group, 403 unless its creator or the group's owner.
    static func changeablePlace(_ placeID: PlaceID, groupID: GroupID, by userID: UserID,
                                in tx: any PlaceTransaction) throws -> Place {
        let group = try GroupService.visibleGroup(groupID, to: userID, in: tx)
        guard let place = try tx.place(id: placeID, groupID: groupID) else { throw TrackingError.notFound("place") }
        guard place.createdBy == userID || group.ownerID == userID else {
            throw TrackingError.forbidden("only the place's creator or the group's owner can change place \(placeID); cannot write partition group=\(groupID)")
        }
        return place
    }

    func shape(geometry: JSONValue, radius: JSONValue?) throws -> (PlaceShape, Double?) {
        try Self.shape(geometry: geometry, radius: radius, limits: limits)
    }

    /// Parses and checks a geometry (and radius); returns its shape and the radius to store.
    static func shape(geometry: JSONValue, radius: JSONValue?, limits: PlaceLimits) throws -> (PlaceShape, Double?) {
        if geometry["type"]?.stringValue == "Polygon", let rings = geometry["coordinates"]?.arrayValue {
            let vertices = rings.reduce(0) { $0 + ($1.arrayValue?.count ?? 0) }
            guard vertices <= limits.verticesPerPolygon else {
                throw TrackingError.invalid("a place polygon may have at most \(limits.verticesPerPolygon) positions, not \(vertices)",
                                            code: .tooManyVertices)
            }
        }
        let region = try PlaceRegion.parse(geometry: geometry, radius: radius)
        switch region {
        case .circle(_, let meters): return (PlaceShape(region: region), meters)
        case .polygon: return (PlaceShape(region: region), nil)
        }
    }
}
