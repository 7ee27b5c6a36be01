import ErrorCodes
import Exports
import HTTPServer
import JSONCore
import Timeline
import Tracking

/// `GET /v1/devices/{id}/timeline` (API.md, "Timeline: stays and trips"), and the timeline as
/// exports: `GET /v1/devices/{id}/export.geojson?timeline=true` (stays as Points, trips as
/// LineStrings) and `export.gpx?timeline=true` (one track per trip). Readers of the device, with
/// the history visibility rule.
struct TimelineRoutes {
    let timeline: TimelineService
    let exports: ExportService
    let access: RouteAccess

    var routes: [Route] {
        let group = RouteGroup(access: access)
        let timeline = self.timeline
        return [
            group.deferred("GET", "/v1/devices/{id}/timeline", .reader(.device(parameter: "id"))) { request, context in
                let query = try TimelineQuery(request)
                let entries = try timeline.timeline(deviceID: request.id(), credential: context.credential,
                                                                    range: query.range, parameters: query.parameters)
                return .json(["segments": .array(entries.map(TimelineDocuments.segment)),
                              "from": .string(Time.format(query.range.lowerBound)), "to": .string(Time.format(query.range.upperBound))])
            },
        ]
    }

    /// A timeline export (`timeline=true` on a device export): computed first (segments are
    /// few), then streamed feature by feature, each trip's path read when its turn comes.
    static func export(timeline: TimelineService, exports: ExportService, deviceID: DeviceID, request: Request, credential: Credential,
                       gpx: Bool) throws -> Response {
        let query = try TimelineQuery(request)
        let entries = try timeline.timeline(deviceID: deviceID, credential: credential, range: query.range, parameters: query.parameters)
        let writer = TimelineExportWriter(entries: entries, deviceID: deviceID, service: timeline, gpx: gpx,
                                          deviceName: try exports.deviceSubject(deviceID: deviceID, credential: credential).deviceName)
        var response = Response(contentType: gpx ? "application/gpx+xml" : "application/geo+json",
                                stream: ResponseStream { chunk in writer.next(into: &chunk) })
        response.setHeader("Content-Disposition", "inline; filename=\"timeline-\(deviceID.rawValue).\(gpx ? "gpx" : "geojson")\"")
        return response
    }
}

/// `from`, `to`, `stayRadius`, `stayMinutes` of a timeline request, validated.
struct TimelineQuery {
    let range: ClosedRange<Int64>
    let parameters: TimelineParameters

    init(_ request: Request) throws {
        range = try TimelineService.range(from: try QueryTime.parse(request.query("from"), name: "from"),
                                          to: try QueryTime.parse(request.query("to"), name: "to"), now: Time.now())
        do {
            parameters = try TimelineParameters.validated(stayRadius: try QueryNumber.double(request.query("stayRadius"), name: "stayRadius"),
                                                          stayMinutes: try QueryNumber.double(request.query("stayMinutes"), name: "stayMinutes"))
        } catch let error as TimelineParameterError {
            throw TrackingError.invalid(error.message, code: ErrorCode(rawValue: error.code))
        }
    }
}

/// The JSON of timeline segments (meters, m/s, `[lon, lat]`, RFC 3339).
enum TimelineDocuments {
    static func segment(_ entry: TimelineEntry) -> JSONValue {
        switch entry {
        case .stay(let stay, let place):
            return ["type": "stay", "start": .string(Time.format(stay.start)), "end": .string(Time.format(stay.end)),
                    "location": point(stay.location), "radius": meters(stay.radius), "fixes": .number(JSONNumber(stay.fixes)),
                    "place": place.map(Self.place) ?? .null]
        case .trip(let trip):
            return ["type": "trip", "start": .string(Time.format(trip.start)), "end": .string(Time.format(trip.end)),
                    "fixes": .number(JSONNumber(trip.fixes)), "distance": meters(trip.distance),
                    "averageSpeed": .number(JSONNumber((trip.averageSpeed * 100).rounded() / 100)),
                    "from": point(trip.from), "to": point(trip.to)]
        }
    }

    static func place(_ place: StayPlace) -> JSONValue {
        var object: JSONObject = ["name": .string(place.name), "source": .string(place.source.rawValue)]
        if let country = place.country { object["country"] = .string(country) }
        return .object(object)
    }

    /// Degrees to 7 decimals (~1 cm).
    static func point(_ p: TimelinePoint) -> JSONValue {
        .array([.number(JSONNumber((p.longitude * 1e7).rounded() / 1e7)), .number(JSONNumber((p.latitude * 1e7).rounded() / 1e7))])
    }

    /// Meters to a decimetre.
    static func meters(_ value: Double) -> JSONValue { .number(JSONNumber((value * 10).rounded() / 10)) }
}

/// Writes a timeline as GeoJSON (a FeatureCollection: stays as Point features, trips as
/// LineString features with their path) or GPX (one `<trk>` per trip), one segment per call.
/// `@unchecked Sendable`: only the response stream's refill calls `next`, one call at a time.
final class TimelineExportWriter: @unchecked Sendable {
    let entries: [TimelineEntry]
    let deviceID: DeviceID
    let deviceName: String
    let service: TimelineService
    let gpx: Bool
    var position = 0
    var started = false
    var gpxWriter = GPXExport(metadata: GPXExport.Metadata(), gapMilliseconds: nil)

    init(entries: [TimelineEntry], deviceID: DeviceID, service: TimelineService, gpx: Bool, deviceName: String) {
        self.entries = entries
        self.deviceID = deviceID
        self.service = service
        self.gpx = gpx
        self.deviceName = deviceName
        gpxWriter = GPXExport(metadata: GPXExport.Metadata(name: "\(deviceName): timeline"), gapMilliseconds: nil)
    }

    /// Appends the next part; false once the document is complete.
    func next(into chunk: inout [UInt8]) -> Bool {
        if !gpx && !started {
            started = true
            chunk += Array(#"{"type":"FeatureCollection","features":["#.utf8)
        }
        while position < entries.count && chunk.count < 32 * 1024 {
            let entry = entries[position]
            position += 1
            if gpx { writeGPX(entry, into: &chunk) } else { writeGeoJSON(entry, first: position == 1, into: &chunk) }
        }
        guard position >= entries.count else { return true }
        if gpx { gpxWriter.finish(into: &chunk) } else { chunk += Array("]}\n".utf8) }
        return false
    }

    func writeGeoJSON(_ entry: TimelineEntry, first: Bool, into chunk: inout [UInt8]) {
        guard case .object(var properties) = TimelineDocuments.segment(entry) else { return }
        let geometry: JSONValue
        switch entry {
        case .stay:
            geometry = ["type": "Point", "coordinates": properties["location"] ?? .null]
            properties["location"] = nil
        case .trip(let trip):
            var coordinates: [JSONValue] = [TimelineDocuments.point(trip.from)]
            for stored in (try? service.path(of: trip, deviceID: deviceID)) ?? [] {
                coordinates.append(TimelineDocuments.point(TimelinePoint(longitude: stored.fix.longitude, latitude: stored.fix.latitude)))
            }
            coordinates.append(TimelineDocuments.point(trip.to))
            geometry = ["type": "LineString", "coordinates": .array(coordinates)]
        }
        properties["deviceId"] = .string(deviceID.rawValue)
        let feature: JSONValue = ["type": "Feature", "geometry": geometry, "properties": .object(properties)]
        if !first { chunk.append(UInt8(ascii: ",")) }
        chunk += feature.serialized()
    }

    func writeGPX(_ entry: TimelineEntry, into chunk: inout [UInt8]) {
        guard case .trip(let trip) = entry else { return }
        let name = "\(deviceName): trip \(Time.format(trip.start)) – \(Time.format(trip.end)), \((trip.distance / 100).rounded() / 10) km"
        let trackID = "trip-\(position)"
        func point(_ lon: Double, _ lat: Double, _ time: Int64, _ altitude: Double?) -> ExportPoint {
            ExportPoint(deviceID: trackID, deviceName: name, userID: "", displayName: "", longitude: lon, latitude: lat, timestamp: time, altitude: altitude)
        }
        gpxWriter.add(point(trip.from.longitude, trip.from.latitude, trip.start, nil), into: &chunk)
        for stored in (try? service.path(of: trip, deviceID: deviceID)) ?? [] {
            gpxWriter.add(point(stored.fix.longitude, stored.fix.latitude, stored.fix.timestamp, stored.fix.altitude), into: &chunk)
        }
        gpxWriter.add(point(trip.to.longitude, trip.to.latitude, trip.end, nil), into: &chunk)
    }
}
