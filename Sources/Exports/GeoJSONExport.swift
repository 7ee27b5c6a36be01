import JSONCore
import Timestamps

/// Streams an RFC 7946 GeoJSON FeatureCollection: devices' latest positions as `Point`
/// features and, optionally, each device's track as a `LineString` or `MultiLineString` feature
/// with its per-vertex times, and every track fix that joins no line as a `Point` of its own.
///
/// Feed it with ``addPosition(_:into:)`` (one `Point` feature each) and ``addTrackPoint(_:into:)``
/// (track fixes), then call ``finish(into:)`` once. Every call appends the bytes it can already
/// write to `out`; the caller may send and clear `out` between calls. Memory is bounded by the
/// current track's few fields, the times of at most ``maxFeaturePositions`` vertices (80 KB)
/// and a fixed 5.6 KiB bounding-box accumulator, whatever the number of points (see
/// ``retainedByteCount``).
///
/// Output (member order is free in JSON; `bbox` comes last because it is known last):
///
///     {"type":"FeatureCollection","features":[
///       {"type":"Feature","geometry":{"type":"Point","coordinates":[lon,lat(,alt)]},
///        "properties":{"kind":"position","deviceId","deviceName","userId","displayName",
///                      "timestamp":"2026-11-30T08:15:00.000Z"}},
///       {"type":"Feature","geometry":{"type":"MultiLineString","coordinates":[[[lon,lat],...],...]},
///        "properties":{"kind":"track","deviceId","deviceName","userId","displayName",
///                      "start","end","pointCount","coordTimes":[["2026-11-30T08:15:00.000Z",...],...]}},
///       {"type":"Feature","geometry":{"type":"Point","coordinates":[lon,lat]},
///        "properties":{"kind":"fix","deviceId",...,"timestamp"}}
///     ],"bbox":[w,s,e,n]}
///
/// - Positions are `[longitude, latitude]`, with `altitude` in meters as a third element when
///   known; degrees have at most 7 decimals (~1 cm), altitudes 2. No `crs` member.
/// - `bbox` covers every position written (see ``GeoBoundsAccumulator``); it has
///   `west > east` when the data straddles the antimeridian, and is absent when nothing was
///   written (an empty FeatureCollection is still valid).
/// - Points with invalid coordinates are skipped and counted in ``skippedPointCount``.
///
/// Tracks:
/// - Track fixes must arrive grouped by device (all of one device's fixes contiguous), each
///   device's fixes in ascending timestamp order. A track ends when a fix of another device
///   arrives, when ``addPosition(_:into:)`` is called, or at ``finish(into:)``; a device whose
///   fixes are not contiguous therefore gets several track features. Out-of-order timestamps are
///   drawn in arrival order and never count as a gap.
/// - The geometry type must be written before the first coordinate, and with bounded memory the
///   writer cannot look ahead for gaps, so the layout is fixed up front (``TrackLayout``):
///   `.lineString` never splits; `.multiLineString` always writes a `MultiLineString`, with one
///   part per gap-free run, even when there is only one part.
/// - `coordTimes` (the member togeojson writes, which this server's import reads back) is
///   parallel to `coordinates`: for a `LineString` one time per position, for a
///   `MultiLineString` one array per part; RFC 3339 UTC with milliseconds, or `null` for a
///   position that is not a fix (where a part ends or starts at the antimeridian, and the first
///   position of a continuation feature).
/// - No fix is dropped. RFC 7946 requires ≥ 2 positions per line: a fix that joins no line (a
///   run of one fix, isolated by gaps on both sides, or a device's only fix) is a `Point` feature
///   of kind `fix` with its `timestamp` — written at once, or while the device's track feature is
///   open, after it (up to ``maxWaitingLoneFixes``, then the feature closes early and the track
///   continues in a new one). `start`, `end` and `pointCount` describe the fixes a line feature
///   draws.
/// - A feature holds at most ``maxFeaturePositions`` positions; a longer track continues in the
///   next feature of the same device, which starts at the last position of the previous one
///   (with a `null` time: the fix is the previous feature's), so the line stays connected.
public struct GeoJSONExport: Sendable, JSONDocumentWriter {
    /// How a device's track is written.
    public enum TrackLayout: Sendable, Hashable {
        /// One `LineString` over all the device's fixes; never split (a track crossing ±180 is
        /// drawn as given, which most clients show as a line around the world).
        case lineString
        /// One `MultiLineString` per device, split into parts where consecutive fixes are more
        /// than `gapMilliseconds` apart (nil: no time split) and where the track crosses the
        /// antimeridian (RFC 7946 §3.1.9: the part ends at ±180 at the linearly interpolated
        /// latitude and the next part starts at ∓180).
        case multiLineString(gapMilliseconds: Int64?)
    }

    /// The default split: 30 minutes without a fix starts a new part.
    public static let defaultGapMilliseconds: Int64 = 30 * 60 * 1000

    /// The layout of track features.
    public let trackLayout: TrackLayout
    /// Features written so far (points and tracks).
    public internal(set) var featureCount = 0
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { admission.skipped }
    private var admission = PointAdmission()

    var json = JSONWriter(capacity: 0)
    var phase = JSONDocumentPhase.notStarted
    var boundsAccumulator = GeoBoundsAccumulator()
    var track: TrackState?

    /// A writer; `trackLayout` matters only when track points are added.
    public init(trackLayout: TrackLayout = .multiLineString(gapMilliseconds: GeoJSONExport.defaultGapMilliseconds)) {
        self.trackLayout = trackLayout
    }

    /// The bounding box of every position written so far, or nil.
    public var bounds: GeoBounds? { boundsAccumulator.bounds }

    /// Approximate heap bytes the writer itself keeps between calls (its buffer capacity, the
    /// bounding-box bins and the open track's strings). Independent of the number of points.
    public var retainedByteCount: Int {
        var total = json.bytes.capacity + boundsAccumulator.retainedByteCount
        if let track {
            total += track.deviceID.utf8.count + track.deviceName.utf8.count
                + track.userID.utf8.count + track.displayName.utf8.count
                + track.vertices.retainedByteCount + track.loneFixes.capacity * MemoryLayout<TrackPosition>.stride
        }
        return total
    }

    /// Writes one `Point` feature (typically a device's latest position). Closes an open track.
    public mutating func addPosition(_ point: ExportPoint, into out: inout [UInt8]) {
        guard admission.admits(point, finished: phase == .finished) else { return }
        writingDocument(into: &out) { export in
            export.closeTrack()
            export.writePointFeature(TrackPosition(point), kind: "position", deviceID: point.deviceID, deviceName: point.deviceName,
                                     userID: point.userID, displayName: point.displayName, timestamp: point.timestamp)
        }
    }

    /// Adds one fix to its device's track (see the type documentation for the required order).
    public mutating func addTrackPoint(_ point: ExportPoint, into out: inout [UInt8]) {
        guard admission.admits(point, finished: phase == .finished) else { return }
        writingDocument(into: &out) { $0.appendTrackFix(point) }
    }

    /// Closes the open track, the feature array and the object (with `bbox` when anything was
    /// written). Later calls to any method write nothing.
    public mutating func finish(into out: inout [UInt8]) {
        finishDocument(into: &out) { $0.close() }
    }

    private mutating func close() {
        closeTrack()
        json.endArray()
        if let bounds = boundsAccumulator.bounds {
            json.key("bbox")
            bounds.writeBBox(into: &json)
        }
        json.endObject()
    }

    // MARK: - Shared pieces

    mutating func open() {
        json.beginObject()
        json.key("type"); json.string("FeatureCollection")
        json.key("features")
        json.beginArray()
    }

    /// Writes `[lon, lat]` or `[lon, lat, alt]` and extends the bounding box.
    mutating func writePosition(_ position: TrackPosition) {
        json.beginArray()
        json.number(position.longitude, fractionDigits: 7)
        json.number(position.latitude, fractionDigits: 7)
        if let altitude = position.altitude {
            json.number(altitude, fractionDigits: 2)
        }
        json.endArray()
        boundsAccumulator.add(longitudeDegrees: position.longitude, latitudeDegrees: position.latitude)
    }

    /// A `Point` feature of `kind` with the device's identity and `timestamp`.
    mutating func writePointFeature(_ position: TrackPosition, kind: String, deviceID: String, deviceName: String,
                                    userID: String, displayName: String, timestamp: Int64) {
        json.beginObject()
        json.key("type"); json.string("Feature")
        json.key("geometry")
        json.beginObject()
        json.key("type"); json.string("Point")
        json.key("coordinates")
        writePosition(position)
        json.endObject()
        json.key("properties")
        json.beginObject()
        json.key("kind"); json.string(kind)
        writeIdentity(deviceID: deviceID, deviceName: deviceName, userID: userID, displayName: displayName)
        json.key("timestamp"); json.string(Timestamp.rfc3339(millisecondsSince1970: timestamp))
        json.endObject()
        json.endObject()
        featureCount += 1
    }

    mutating func writeIdentity(deviceID: String, deviceName: String, userID: String, displayName: String) {
        json.key("deviceId"); json.string(deviceID)
        json.key("deviceName"); json.string(deviceName)
        json.key("userId"); json.string(userID)
        json.key("displayName"); json.string(displayName)
    }
}
