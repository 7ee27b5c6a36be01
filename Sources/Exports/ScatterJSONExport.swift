import JSONCore
import Timestamps

/// Streams the JSON form of a geospatial scatter chart, one series per device or user:
///
///     {"colorField":"device",
///      "series":[{"key":"d_1","name":"Pixel","label":"Pixel","color":"#e6194b",
///                 "points":[[lon,lat,"2026-11-30T08:15:00.000Z"],...]},...],
///      "bbox":[w,s,e,n]}
///
/// Points must arrive sorted by (series key, timestamp): all points of a series contiguous,
/// series in ascending key order (that order makes the colours those of
/// ``ScatterPalette/assignColors(toKeys:)`` for the same keys). A series whose points are not
/// contiguous appears once per run, with the same key, label and colour.
///
/// Degrees have at most 7 decimals. `bbox` (see ``GeoBoundsAccumulator``; `west > east` across
/// the antimeridian) comes last because it is known last, and is `null` when there are no
/// points. Points with invalid coordinates are skipped and counted. Memory grows with the
/// number of series, not points.
public struct ScatterJSONExport: Sendable, JSONDocumentWriter {
    /// The field that defines series.
    public let colorField: ScatterColorField
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { points.skipped }
    private var points: ScatterPoints
    var json = JSONWriter(capacity: 0)
    var phase = JSONDocumentPhase.notStarted
    private var seriesOpen = false

    public init(colorField: ScatterColorField) {
        self.colorField = colorField
        points = ScatterPoints(colorField: colorField)
    }

    /// The series seen so far, in order of first appearance.
    public var series: [ScatterSeries] { points.series }

    /// The bounding box of the points written so far, or nil.
    public var bounds: GeoBounds? { points.bounds }

    /// Writes one point, opening its series when a new run starts.
    public mutating func add(_ point: ExportPoint, into out: inout [UInt8]) {
        guard let (series, startsRun) = points.take(point, finished: phase == .finished) else { return }
        writingDocument(into: &out) { $0.write(point, series: series, startsRun: startsRun) }
    }

    /// Closes the document. Later calls write nothing.
    public mutating func finish(into out: inout [UInt8]) {
        finishDocument(into: &out) { $0.close() }
    }

    private mutating func write(_ point: ExportPoint, series: ScatterSeries, startsRun: Bool) {
        if startsRun {
            closeSeries()
            json.beginObject()
            json.key("key"); json.string(series.key)
            json.key("name"); json.string(series.name)
            json.key("label"); json.string(series.label)
            json.key("color"); json.string(series.color.hex)
            json.key("points")
            json.beginArray()
            seriesOpen = true
        }
        json.beginArray()
        json.number(point.longitude, fractionDigits: 7)
        json.number(point.latitude, fractionDigits: 7)
        json.string(Timestamp.rfc3339(millisecondsSince1970: point.timestamp))
        json.endArray()
    }

    private mutating func close() {
        closeSeries()
        json.endArray()
        json.key("bbox")
        if let bounds = points.bounds {
            bounds.writeBBox(into: &json)
        } else {
            json.null()
        }
        json.endObject()
    }

    mutating func open() {
        json.beginObject()
        json.key("colorField"); json.string(colorField.rawValue)
        json.key("series")
        json.beginArray()
    }

    private mutating func closeSeries() {
        guard seriesOpen else { return }
        json.endArray()
        json.endObject()
        seriesOpen = false
    }
}
