import JSONCore
import Timestamps

/// Streams newline-delimited JSON (`application/x-ndjson`): one line per fix with every stored
/// field, in the form `POST /v1/devices/{id}/import` and `fod import` read back (detected from
/// the content), so that an export imported into another device exports the same bytes.
///
///     {"id":"gr:1367409600000:-338688197:1512093048","location":[151.2093048,-33.8688197],
///      "timestamp":"2013-05-01T12:00:00.000Z","accuracy":20,"altitude":58,"speed":1.5,"heading":90,"battery":80}
///
/// (one line in the output). Invariants:
/// - Members in this order: `deviceId` (only with `includeDevice`, a group's export), `id`,
///   `location` (`[longitude, latitude]`), `timestamp`, `accuracy`, `altitude`, `speed`,
///   `heading`, `battery`. A field the fix does not have is absent, never `null`.
/// - Numbers are the stored doubles in the shortest form that parses back to the same double
///   (`JSONWriter.number(_: Double)`: `5`, `0.1`, `3.3333333333333335`), and times RFC 3339 UTC
///   with milliseconds, the stored precision: parsing a line gives back exactly the stored fix.
/// - Every line, the last included, ends with `\n`; the writer holds no state between lines, so
///   memory does not grow with the number of fixes.
/// - Points with invalid coordinates are skipped and counted in ``skippedPointCount`` (stored
///   fixes never have them).
public struct NDJSONExport: Sendable, JSONStreamWriter {
    /// Whether each line names its device (`deviceId`): a group's export mixes devices.
    public let includeDevice: Bool
    /// Lines written so far.
    public private(set) var lineCount = 0
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { admission.skipped }
    private var admission = PointAdmission()

    var json = JSONWriter(capacity: 0)

    public init(includeDevice: Bool = false) {
        self.includeDevice = includeDevice
    }

    /// Appends the line of one fix to `out`.
    public mutating func add(_ point: ExportPoint, into out: inout [UInt8]) {
        guard admission.admits(point) else { return }
        json.reset()
        writing(into: &out) { $0.writeLine(point) }
    }

    private mutating func writeLine(_ point: ExportPoint) {
        let details = point.details
        json.beginObject()
        if includeDevice { json.key(ascii: "deviceId"); json.string(point.deviceID) }
        if let id = details.clientID { json.key(ascii: "id"); json.string(id) }
        json.key(ascii: "location")
        json.beginArray()
        json.number(point.longitude)
        json.number(point.latitude)
        json.endArray()
        json.key(ascii: "timestamp")
        json.rawValue { bytes in
            bytes.append(UInt8(ascii: "\""))
            Timestamp.appendRFC3339(millisecondsSince1970: point.timestamp, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        if let v = details.accuracy, v.isFinite { json.key(ascii: "accuracy"); json.number(v) }
        if let v = point.knownAltitude { json.key(ascii: "altitude"); json.number(v) }
        if let v = details.speed, v.isFinite { json.key(ascii: "speed"); json.number(v) }
        if let v = details.heading, v.isFinite { json.key(ascii: "heading"); json.number(v) }
        if let v = details.battery, v.isFinite { json.key(ascii: "battery"); json.number(v) }
        json.endObject()
        json.bytes.append(UInt8(ascii: "\n"))
        lineCount += 1
    }
}
