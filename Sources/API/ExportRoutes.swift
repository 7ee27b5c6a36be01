import Exports
import GeoQuery
import HTTPServer
import JSONCore
import Tracking

/// Exports (API.md): GeoJSON (group latest positions, optional tracks; a device's history),
/// GPX, and scatter-chart data (json, csv, vega-lite, svg). All stream with bounded memory and
/// contain only what the caller may read.
struct ExportRoutes {
    let services: Services
    let basemap: Basemap?

    var routes: [Route] {
        let services = self.services
        let basemap = self.basemap
        let auth = Authentication(services: services)
        return [
            Route("GET", "/v1/groups/{id}/export.geojson", .inline { request in
                let credential = try Self.userCredential(request, auth: auth)
                let subjects = try services.exports.groupSubjects(groupID: request.parameter("id"), credential: credential)
                let options = try ExportOptions(request)
                let writer = ExportWriter.geoJSON(GeoJSONExport(trackLayout: options.trackLayout), tracks: options.tracks)
                return Self.respond(services, subjects, options, writer, contentType: "application/geo+json",
                                    filename: "group-\(request.parameter("id")).geojson")
            }),
            Route("GET", "/v1/devices/{id}/export.geojson", .inline { request in
                let credential = try Self.userCredential(request, auth: auth)
                let subject = try services.exports.deviceSubject(deviceID: request.parameter("id"), credential: credential)
                var options = try ExportOptions(request)
                options.tracks = true
                let writer = ExportWriter.geoJSON(GeoJSONExport(trackLayout: options.trackLayout), tracks: true)
                return Self.respond(services, [subject], options, writer, contentType: "application/geo+json",
                                    filename: "device-\(subject.deviceID).geojson")
            }),
            Route("GET", "/v1/devices/{id}/export.gpx", .inline { request in
                let credential = try Self.userCredential(request, auth: auth)
                let subject = try services.exports.deviceSubject(deviceID: request.parameter("id"), credential: credential)
                let options = try ExportOptions(request)
                let writer = ExportWriter.gpx(GPXExport(metadata: GPXExport.Metadata(name: subject.deviceName, timeMilliseconds: Time.now()),
                                                        gapMilliseconds: options.gapMilliseconds))
                return Self.respond(services, [subject], options, writer, contentType: "application/gpx+xml",
                                    filename: "device-\(subject.deviceID).gpx")
            }),
            Route("GET", "/v1/groups/{id}/export/scatter", .inline { request in
                let credential = try Self.userCredential(request, auth: auth)
                let groupID = request.parameter("id")
                var subjects = try services.exports.groupSubjects(groupID: groupID, credential: credential)
                let options = try ExportOptions(request)
                let field: ScatterColorField
                switch request.query("color") ?? "device" {
                case "device": field = .device
                case "user": field = .user
                default: throw TrackingError.invalid("color must be device or user", code: "invalid_color")
                }
                // Scatter writers need points grouped by series key, oldest first within a series.
                subjects.sort { field == .device ? $0.deviceID < $1.deviceID : ($0.userID, $0.deviceID) < ($1.userID, $1.deviceID) }
                let groupName = try services.groups.group(id: groupID, for: credential).record.name
                let title = "\(groupName): positions by \(field.rawValue)"
                switch request.query("format") ?? "json" {
                case "json":
                    return Self.respond(services, subjects, options, .scatterJSON(ScatterJSONExport(colorField: field)),
                                        contentType: "application/json; charset=utf-8", filename: "scatter-\(groupID).json")
                case "csv":
                    return Self.respond(services, subjects, options, .scatterCSV(ScatterCSVExport(colorField: field)),
                                        contentType: "text/csv; charset=utf-8", filename: "scatter-\(groupID).csv")
                case "vega-lite":
                    let writer = VegaLiteExport(colorField: field, basemap: basemap, options: VegaLiteExport.Options(title: title))
                    return Self.respond(services, subjects, options, .vegaLite(writer),
                                        contentType: "application/json; charset=utf-8", filename: "scatter-\(groupID).vl.json")
                case "svg":
                    let pending: (GeoBounds?) -> SVGScatterMap = { bounds in
                        SVGScatterMap(bounds: bounds, colorField: field, basemap: basemap,
                                      options: SVGScatterMap.Options(title: title, attribution: "Countries: Natural Earth (public domain)"))
                    }
                    return Self.respond(services, subjects, options, .svg(pending: pending, map: nil),
                                        contentType: "image/svg+xml", filename: "scatter-\(groupID).svg")
                default:
                    throw TrackingError.invalid("format must be json, csv, vega-lite or svg", code: "invalid_format")
                }
            }),
        ]
    }

    static func userCredential(_ request: Request, auth: Authentication) throws -> Credential {
        let credential = try auth.credential(request)
        if case .device = credential { throw TrackingError.wrongCredentialKind("exports need a user token; a device token was given") }
        if credential == .anonymous { throw TrackingError.unauthenticated }
        return credential
    }

    static func respond(_ services: Services, _ subjects: [ExportSubject], _ options: ExportOptions, _ writer: ExportWriter,
                        contentType: String, filename: String) -> Response {
        let exports = services.exports
        let producer = ExportProducer(subjects: subjects,
                                      makeCursor: { exports.rows(of: subjects, from: options.from, to: options.to) },
                                      within: options.within, simplifyMeters: options.simplifyMeters, writer: writer, logger: services.logger)
        var response = Response(contentType: contentType, stream: producer.stream)
        response.setHeader("Content-Disposition", "inline; filename=\"\(filename)\"")
        return response
    }
}

/// Query options shared by exports: `from`, `to`, `tracks`, `gap` (minutes), `within`
/// (a GeoJSON Polygon/MultiPolygon), `simplify` (meters).
struct ExportOptions {
    var from: Int64?
    var to: Int64?
    var tracks = false
    var gapMilliseconds: Int64? = GeoJSONExport.defaultGapMilliseconds
    var within: GeoFilter?
    var simplifyMeters: Double?

    var trackLayout: GeoJSONExport.TrackLayout { .multiLineString(gapMilliseconds: gapMilliseconds) }

    init(_ request: Request) throws {
        from = try QueryTime.parse(request.query("from"), name: "from")
        to = try QueryTime.parse(request.query("to"), name: "to")
        if let from, let to, from > to { throw TrackingError.invalid("from must not be after to", code: "invalid_range") }
        switch request.query("tracks") {
        case nil, "false", "0": tracks = false
        case "true", "1": tracks = true
        default: throw TrackingError.invalid("tracks must be true or false", code: "invalid_parameter")
        }
        if let gap = try QueryNumber.double(request.query("gap"), name: "gap") {
            guard gap >= 0, gap <= 525_600 else { throw TrackingError.invalid("gap is minutes, 0 (never split) to 525600", code: "invalid_parameter") }
            gapMilliseconds = gap == 0 ? nil : Int64(gap * 60_000)
        }
        if let text = request.query("within"), !text.isEmpty {
            guard text.utf8.count <= 1 << 20 else { throw TrackingError.invalid("within is too large", code: "invalid_parameter") }
            let geometry = try JSONParser.parse(Array(text.utf8))
            within = try GeoFilter.parse(["$geoWithin": ["$geometry": geometry]])
        }
        if let meters = try QueryNumber.double(request.query("simplify"), name: "simplify") {
            guard meters > 0, meters <= 100_000 else { throw TrackingError.invalid("simplify is a tolerance in meters, 0 to 100000", code: "invalid_parameter") }
            simplifyMeters = meters
        }
    }
}
