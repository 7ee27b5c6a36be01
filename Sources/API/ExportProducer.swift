import Exports
import GeoQuery
import HTTPServer
import PlanarGeometry
import Tracking

/// The writer an export streams into.
enum ExportWriter {
    case geoJSON(GeoJSONExport, tracks: Bool)
    case gpx(GPXExport)
    case ndjson(NDJSONExport)
    case scatterJSON(ScatterJSONExport)
    case scatterCSV(ScatterCSVExport)
    case vegaLite(VegaLiteExport)
    /// SVG needs the data's bounds before the first point: built after a bounds pass.
    case svg(pending: (GeoBounds?) -> SVGScatterMap, map: SVGScatterMap?)

    var wantsPositions: Bool { if case .geoJSON = self { return true } else { return false } }
    /// What of each fix the writer writes: NDJSON every field, GPX its measurements; maps and
    /// charts positions only (cheaper to read).
    var detail: ExportRow.Detail {
        switch self {
        case .ndjson, .gpx: .everything
        default: .positions
        }
    }
    var wantsRows: Bool { if case .geoJSON(_, let tracks) = self { return tracks } else { return true } }

    mutating func position(_ point: ExportPoint, into out: inout [UInt8]) {
        if case .geoJSON(var writer, let tracks) = self { writer.addPosition(point, into: &out); self = .geoJSON(writer, tracks: tracks) }
    }

    mutating func row(_ point: ExportPoint, into out: inout [UInt8]) {
        switch self {
        case .geoJSON(var w, let tracks): w.addTrackPoint(point, into: &out); self = .geoJSON(w, tracks: tracks)
        case .gpx(var w): w.add(point, into: &out); self = .gpx(w)
        case .ndjson(var w): w.add(point, into: &out); self = .ndjson(w)
        case .scatterJSON(var w): w.add(point, into: &out); self = .scatterJSON(w)
        case .scatterCSV(var w): w.add(point, into: &out); self = .scatterCSV(w)
        case .vegaLite(var w): w.add(point, into: &out); self = .vegaLite(w)
        case .svg(let pending, var map): map?.add(point, into: &out); self = .svg(pending: pending, map: map)
        }
    }

    mutating func finish(into out: inout [UInt8]) {
        switch self {
        case .geoJSON(var w, let tracks): w.finish(into: &out); self = .geoJSON(w, tracks: tracks)
        case .gpx(var w): w.finish(into: &out); self = .gpx(w)
        case .ndjson: break  // every line is complete as it is written
        case .scatterJSON(var w): w.finish(into: &out); self = .scatterJSON(w)
        case .scatterCSV(var w): w.finish(into: &out); self = .scatterCSV(w)
        case .vegaLite(var w): w.finish(into: &out); self = .vegaLite(w)
        case .svg(let pending, var map): map?.finish(into: &out); self = .svg(pending: pending, map: map)
        }
    }
}

/// Drives one export: latest positions (GeoJSON), then every readable position page by page,
/// into the writer, a chunk per call — the response stream's pull `refill`. Memory stays
/// bounded by a page of rows plus the writer's small state (with `simplify`, by one device's
/// track, which GEOS needs whole).
///
/// `@unchecked Sendable`: the server calls a stream's refill serially, never concurrently.
final class ExportProducer: @unchecked Sendable {
    let subjects: [ExportSubject]
    let makeCursor: () -> ExportRowCursor
    let within: GeoFilter?
    let simplifyMeters: Double?
    let logger: Logger
    var writer: ExportWriter
    private var cursor: ExportRowCursor?
    private var positionsDone = false
    /// Positions read so far (for progress).
    private(set) var rowsRead = 0
    private var finished = false
    /// Output stops growing a chunk past this many bytes (the stream sends it, then asks again).
    static let chunkBytes = 64 * 1024

    init(subjects: [ExportSubject], makeCursor: @escaping () -> ExportRowCursor, within: GeoFilter?, simplifyMeters: Double?,
         writer: ExportWriter, logger: Logger) {
        self.subjects = subjects
        self.makeCursor = makeCursor
        self.within = within
        self.simplifyMeters = simplifyMeters
        self.writer = writer
        self.logger = logger
    }

    var stream: ResponseStream { ResponseStream { [self] out in refill(&out) } }

    func refill(_ out: inout [UInt8]) -> Bool {
        guard !finished else { return false }
        do {
            if case .svg(let pending, nil) = writer { writer = .svg(pending: pending, map: pending(try bounds())) }
            if !positionsDone {
                positionsDone = true
                if writer.wantsPositions {
                    for s in subjects {
                        guard let last = s.last, accepts(last.longitude, last.latitude) else { continue }
                        writer.position(point(s, last.longitude, last.latitude, last.timestamp.millisecondsSince1970, nil), into: &out)
                    }
                }
                if !writer.wantsRows { cursor = nil } else { cursor = makeCursor() }
                if out.count >= Self.chunkBytes { return true }
            }
            while let cursor, out.count < Self.chunkBytes {
                guard let (subject, rows) = try nextRows(cursor) else { self.cursor = nil; break }
                rowsRead += rows.count
                for r in rows where accepts(r.longitude, r.latitude) {
                    writer.row(point(subject, r), into: &out)
                }
            }
            if cursor == nil {
                writer.finish(into: &out)
                finished = true
                // A pull stream's refill gives bytes or ends: an empty chunk that says "more"
                // would park the response for good (NDJSON with no fix writes nothing at all).
                return !out.isEmpty
            }
            return true
        } catch {
            logger.error("export failed mid-stream: \(error)")
            finished = true
            return false
        }
    }

    /// The next page, or with `simplify`, one device's whole track reduced by GEOS.
    private func nextRows(_ cursor: ExportRowCursor) throws -> (ExportSubject, [ExportRow])? {
        guard let tolerance = simplifyMeters, let (subject, first) = try cursor.nextPage() else { return try cursor.nextPage() }
        var rows = first
        while rows.count % cursor.pageSize == 0, let (next, more) = try cursor.peekSameSubject(subject) {
            _ = next
            rows += more
        }
        let kept = try TrackSimplifier.simplify(rows.map { ($0.longitude, $0.latitude) }, toleranceMeters: tolerance)
        return (subject, kept.map { rows[$0] })
    }

    private func bounds() throws -> GeoBounds? {
        var accumulator = GeoBoundsAccumulator()
        let pass = makeCursor()
        while let (_, rows) = try pass.nextPage() {
            for r in rows where accepts(r.longitude, r.latitude) { accumulator.add(longitudeDegrees: r.longitude, latitudeDegrees: r.latitude) }
        }
        return accumulator.bounds
    }

    private func accepts(_ longitude: Double, _ latitude: Double) -> Bool {
        within?.matchesStored(longitude: longitude, latitude: latitude) ?? true
    }

    private func point(_ s: ExportSubject, _ lon: Double, _ lat: Double, _ ts: Int64, _ alt: Double?) -> ExportPoint {
        ExportPoint(deviceID: s.deviceID.rawValue, deviceName: s.deviceName, userID: s.userID.rawValue, displayName: s.displayName,
                    longitude: lon, latitude: lat, timestamp: ts, altitude: alt)
    }

    /// A stored fix with every field.
    private func point(_ s: ExportSubject, _ r: ExportRow) -> ExportPoint {
        ExportPoint(deviceID: s.deviceID.rawValue, deviceName: s.deviceName, userID: s.userID.rawValue, displayName: s.displayName,
                    longitude: r.longitude, latitude: r.latitude, timestamp: r.timestamp, altitude: r.altitude,
                    details: ExportPointDetails(accuracy: r.accuracy, speed: r.speed, heading: r.heading, battery: r.battery,
                                                clientID: r.clientID))
    }
}
