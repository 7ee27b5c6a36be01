import Exports
import GeoQuery
import HTTPServer
import JSONCore
import Tracking

/// Exports (API.md): GeoJSON (group latest positions, optional tracks; a device's history),
/// GPX, NDJSON (every stored field of every fix, for a device or a group: what the import reads
/// back), and scatter-chart data (json, csv, vega-lite, svg). All stream with bounded memory and
/// contain only what the caller may read.
public struct ExportRoutes: Sendable {
    let exports: ExportService
    let groups: GroupService
    let timeline: TimelineService
    let logger: Logger
    let basemap: Basemap?
    let access: RouteAccess

    /// The export routes over what they use of `services` (also `fod export`, without HTTP).
    public init(services: Services, basemap: Basemap?) {
        exports = services.exports
        groups = services.groups
        timeline = services.timeline
        logger = services.logger
        access = services.routeAccess
        self.basemap = basemap
    }

    /// The export endpoints.
    public enum Endpoint: String, Sendable, CaseIterable {
        case groupGeoJSON = "/v1/groups/{id}/export.geojson"
        case deviceGeoJSON = "/v1/devices/{id}/export.geojson"
        case deviceGPX = "/v1/devices/{id}/export.gpx"
        case deviceNDJSON = "/v1/devices/{id}/export.ndjson"
        case groupNDJSON = "/v1/groups/{id}/export.ndjson"
        case groupScatter = "/v1/groups/{id}/export/scatter"
    }

    /// The media type of the NDJSON exports.
    static let ndjsonType = "application/x-ndjson"

    /// A prepared export: what to send and how to label it.
    public struct Prepared: Sendable {
        public let contentType: String
        public let filename: String
        let producer: ExportProducer
        /// Positions the export will read at most (for progress bars).
        public let expectedRows: Int
        public var stream: ResponseStream { producer.stream }
        /// Positions read so far.
        public var rowsRead: Int { producer.rowsRead }
    }

    var routes: [Route] {
        let group = RouteGroup(access: access)
        return Endpoint.allCases.map { endpoint in
            let routes = self
            let reader: Caller = endpoint.rawValue.hasPrefix("/v1/groups") ? .reader(.group(parameter: "id")) : .reader(.device(parameter: "id"))
            // Deferred: preparing (counting rows, a timeline over months) must not hold an HTTP thread.
            return group.deferred("GET", endpoint.rawValue, reader) { request, context in
                // The device's timeline instead of its fixes (stays and trips, TimelineRoutes).
                if endpoint == .deviceGeoJSON || endpoint == .deviceGPX, let timeline = request.query("timeline"), timeline == "true" || timeline == "1" {
                    return try TimelineRoutes.export(timeline: routes.timeline, exports: routes.exports, deviceID: request.id(), request: request,
                                                     credential: context.credential, gpx: endpoint == .deviceGPX)
                }
                let prepared = try routes.prepare(endpoint, id: request.parameter("id"), query: request, credential: context.credential)
                var response = Response(contentType: prepared.contentType, stream: prepared.stream)
                response.setHeader("Content-Disposition", "inline; filename=\"\(prepared.filename)\"")
                return response
            }
        }
    }

    /// Checks rights and options and builds the export; shared by the routes and `fod export`.
    public func prepare(_ endpoint: Endpoint, id: String, query request: Request, credential: Credential) throws -> Prepared {
        let options = try ExportOptions(request)
        let groupID = GroupID(id), deviceID = DeviceID(id)
        switch endpoint {
        case .groupGeoJSON:
            let subjects = try exports.groupSubjects(groupID: groupID, credential: credential)
            let writer = ExportWriter.geoJSON(GeoJSONExport(trackLayout: options.trackLayout), tracks: options.tracks)
            return try make(subjects, options, writer, "application/geo+json", "group-\(id).geojson", rows: options.tracks,
                            scope: .group(groupID), credential: credential)
        case .deviceGeoJSON:
            let subject = try exports.deviceSubject(deviceID: deviceID, credential: credential)
            let writer = ExportWriter.geoJSON(GeoJSONExport(trackLayout: options.trackLayout), tracks: true)
            return try make([subject], options, writer, "application/geo+json", "device-\(id).geojson", rows: true,
                            scope: .device(deviceID), credential: credential)
        case .deviceGPX:
            let subject = try exports.deviceSubject(deviceID: deviceID, credential: credential)
            let writer = ExportWriter.gpx(GPXExport(metadata: GPXExport.Metadata(name: subject.deviceName, timeMilliseconds: Time.now()),
                                                    gapMilliseconds: options.gapMilliseconds))
            return try make([subject], options, writer, "application/gpx+xml", "device-\(id).gpx", rows: true,
                            scope: .device(deviceID), credential: credential)
        case .deviceNDJSON:
            let subject = try exports.deviceSubject(deviceID: deviceID, credential: credential)
            return try make([subject], options, .ndjson(NDJSONExport()), Self.ndjsonType, "device-\(id).ndjson", rows: true,
                            scope: .device(deviceID), credential: credential)
        case .groupNDJSON:
            let subjects = try exports.groupSubjects(groupID: groupID, credential: credential)
            return try make(subjects, options, .ndjson(NDJSONExport(includeDevice: true)), Self.ndjsonType, "group-\(id).ndjson",
                            rows: true, scope: .group(groupID), credential: credential)
        case .groupScatter:
            var subjects = try exports.groupSubjects(groupID: groupID, credential: credential)
            let field: ScatterColorField
            switch request.query("color") ?? "device" {
            case "device": field = .device
            case "user": field = .user
            default: throw TrackingError.invalid("color must be device or user", code: .invalidColor)
            }
            // Scatter writers need points grouped by series key, oldest first within a series.
            subjects.sort { field == .device ? $0.deviceID < $1.deviceID : ($0.userID, $0.deviceID) < ($1.userID, $1.deviceID) }
            let groupName = try groups.group(id: groupID, for: credential).record.name
            let title = "\(groupName): positions by \(field.rawValue)"
            let basemap = self.basemap
            switch request.query("format") ?? "json" {
            case "json":
                return try make(subjects, options, .scatterJSON(ScatterJSONExport(colorField: field)), "application/json; charset=utf-8", "scatter-\(id).json", rows: true, scope: .group(groupID), credential: credential)
            case "csv":
                return try make(subjects, options, .scatterCSV(ScatterCSVExport(colorField: field)), "text/csv; charset=utf-8", "scatter-\(id).csv", rows: true, scope: .group(groupID), credential: credential)
            case "vega-lite":
                let writer = VegaLiteExport(colorField: field, basemap: basemap, options: VegaLiteExport.Options(title: title))
                return try make(subjects, options, .vegaLite(writer), "application/json; charset=utf-8", "scatter-\(id).vl.json", rows: true, scope: .group(groupID), credential: credential)
            case "svg":
                let pending: (GeoBounds?) -> SVGScatterMap = { bounds in
                    SVGScatterMap(bounds: bounds, colorField: field, basemap: basemap,
                                  options: SVGScatterMap.Options(title: title, attribution: "Countries: Natural Earth (public domain)"))
                }
                return try make(subjects, options, .svg(pending: pending, map: nil), "image/svg+xml", "scatter-\(id).svg", rows: true, scope: .group(groupID), credential: credential)
            default:
                throw TrackingError.invalid("format must be json, csv, vega-lite or svg", code: .invalidFormat)
            }
        }
    }

    func make(_ subjects: [ExportSubject], _ options: ExportOptions, _ writer: ExportWriter, _ contentType: String,
              _ filename: String, rows: Bool, scope: ExportService.Scope, credential: Credential) throws -> Prepared {
        let exports = self.exports
        let producer = ExportProducer(subjects: subjects,
                                      makeCursor: { exports.rows(of: subjects, from: options.from, to: options.to,
                                                                 scope: scope, credential: credential, detail: writer.detail) },
                                      within: options.within, simplifyMeters: options.simplifyMeters, writer: writer, logger: logger)
        let expected = rows ? try exports.countRows(of: subjects, from: options.from, to: options.to) : subjects.count
        return Prepared(contentType: contentType, filename: filename, producer: producer, expectedRows: expected)
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
        if let from, let to, from > to { throw TrackingError.invalid("from must not be after to", code: .invalidRange) }
        switch request.query("tracks") {
        case nil, "false", "0": tracks = false
        case "true", "1": tracks = true
        default: throw TrackingError.invalid("tracks must be true or false", code: .invalidParameter)
        }
        if let gap = try QueryNumber.double(request.query("gap"), name: "gap") {
            guard gap >= 0, gap <= 525_600 else { throw TrackingError.invalid("gap is minutes, 0 (never split) to 525600", code: .invalidParameter) }
            gapMilliseconds = gap == 0 ? nil : Int64(gap * 60_000)
        }
        if let text = request.query("within"), !text.isEmpty {
            guard text.utf8.count <= 1 << 20 else { throw TrackingError.invalid("within is too large", code: .invalidParameter) }
            let geometry = try JSONParser.parse(Array(text.utf8))
            within = try GeoFilter.parse(["$geoWithin": ["$geometry": geometry]])
        }
        if let meters = try QueryNumber.double(request.query("simplify"), name: "simplify") {
            guard meters > 0, meters <= 100_000 else { throw TrackingError.invalid("simplify is a tolerance in meters, 0 to 100000", code: .invalidParameter) }
            simplifyMeters = meters
        }
    }
}
