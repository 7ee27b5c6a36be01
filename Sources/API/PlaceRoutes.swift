import HTTPServer
import JSONCore
import Tracking

/// Places (geofences) of a group: API.md, "Places (geofences) and arrivals".
struct PlaceRoutes {
    let places: PlaceService
    let access: RouteAccess

    var routes: [Route] {
        let places = self.places
        let group = RouteGroup(access: access)
        let member = Caller.reader(.group(parameter: "id"))
        // A polygon of 1,000 positions is ~40 KB of JSON.
        let placeBodyLimit = 256 * 1024
        return [
            group.deferred("POST", "/v1/groups/{id}/places", .user, body: NewPlaceBody.self, maxBodyBytes: placeBodyLimit) { request, context, body in
                let place = try await places.create(groupID: request.id(), by: try context.userID, name: body.name,
                                                    geometry: body.geometry, radius: body.radius)
                return .json(status: 201, PlaceDocuments.place(place, inside: nil))
            },
            group.inline("GET", "/v1/groups/{id}/places", member) { request, context in
                .json(["places": PlaceDocuments.places(try places.places(groupID: request.id(), for: try context.userID))])
            },
            group.inline("GET", "/v1/groups/{id}/places/{placeId}", member) { request, context in
                let placeID: PlaceID = request.id("placeId")
                guard let found = try places.places(groupID: request.id(), for: try context.userID).first(where: { $0.place.id == placeID }) else {
                    throw TrackingError.notFound("place")
                }
                return .json(PlaceDocuments.place(found.place, inside: found.inside))
            },
            group.deferred("PATCH", "/v1/groups/{id}/places/{placeId}", .user, body: PlaceChangeBody.self, maxBodyBytes: placeBodyLimit) { request, context, body in
                let place = try await places.update(groupID: request.id(), placeID: request.id("placeId"), by: try context.userID,
                                                    name: body.name, geometry: body.geometry, radius: body.radius)
                return .json(PlaceDocuments.place(place, inside: nil))
            },
            group.deferred("DELETE", "/v1/groups/{id}/places/{placeId}", .user) { request, context in
                try await places.delete(groupID: request.id(), placeID: request.id("placeId"), by: try context.userID)
                return .noContent
            },
        ]
    }
}

/// `{name, geometry, radius?}`: geometry a GeoJSON object (checked by `PlaceService`).
struct NewPlaceBody: RequestBody {
    let name: String, geometry: JSONValue, radius: JSONValue?
    init(_ body: JSONBody) throws {
        name = try body.string("name")
        guard let geometry = body["geometry"], !geometry.isNull else { throw TrackingError.missingField("geometry") }
        guard geometry.objectValue != nil else { throw TrackingError.wrongType("geometry", expected: "a GeoJSON Point or Polygon object") }
        self.geometry = geometry
        radius = body["radius"].flatMap { $0.isNull ? nil : $0 }
    }
}

/// `{name?, geometry?, radius?}`.
struct PlaceChangeBody: RequestBody {
    let name: String?, geometry: JSONValue?, radius: JSONValue?
    init(_ body: JSONBody) throws {
        name = try body.optionalString("name")
        let geometry = body["geometry"].flatMap { $0.isNull ? nil : $0 }
        if let geometry, geometry.objectValue == nil {
            throw TrackingError.wrongType("geometry", expected: "a GeoJSON Point or Polygon object")
        }
        self.geometry = geometry
        radius = body["radius"].flatMap { $0.isNull ? nil : $0 }
    }
}

/// JSON of places (API.md): `{id, groupId, name, geometry, radius?, createdBy, createdAt, updatedAt, inside?}`.
enum PlaceDocuments {
    static func place(_ place: Place, inside: [DeviceID]?) -> JSONValue {
        var object: JSONObject = ["id": .id(place.id), "groupId": .id(place.groupID), "name": .string(place.name),
                                  "geometry": place.geometry, "createdBy": .id(place.createdBy),
                                  "createdAt": .string(Time.format(place.createdAt)), "updatedAt": .string(Time.format(place.updatedAt))]
        if let radius = place.radiusMeters { object["radius"] = .number(JSONNumber(radius)) }
        if let inside { object["inside"] = .array(inside.map { .id($0) }) }
        return .object(object)
    }

    static func places(_ places: [PlaceWithPresence]) -> JSONValue {
        .array(places.map { place($0.place, inside: $0.inside) })
    }

    /// Most polygon positions a live snapshot carries, all places together: with the member
    /// limit, what bounds every stream's opening by design (a polygon past it is sent without
    /// its `geometry`, `geometryOmitted: true`, and the snapshot says `placesComplete: false`:
    /// `GET /v1/groups/{id}/places` has every shape).
    static let snapshotPositionBudget = 4_000

    /// The live feed's snapshot: the group document plus its places with who is inside.
    static func snapshot(group: JSONValue, places: [PlaceWithPresence]) -> JSONValue {
        guard var object = group.objectValue else { return group }
        var budget = snapshotPositionBudget
        var complete = true
        object["places"] = .array(places.map { entry in
            var document = place(entry.place, inside: entry.inside)
            let positions = PlaceGeometry.positionCount(entry.place.geometry)
            if positions <= budget {
                budget -= positions
            } else if case .object(var fields) = document {
                fields["geometry"] = nil
                fields["geometryOmitted"] = true
                document = .object(fields)
                complete = false
            }
            return document
        })
        object["placesComplete"] = .bool(complete)
        return .object(object)
    }
}
