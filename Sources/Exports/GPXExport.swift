import Timestamps

/// Streams a GPX 1.1 document (`xmlns="http://www.topografix.com/GPX/1/1"`,
/// `creator="Find Our Devices"`): one `<trk>` per device, named after the device, split into
/// `<trkseg>`s where consecutive fixes are more than `gapMilliseconds` apart.
///
/// Feed fixes with ``add(_:into:)`` grouped by device (each device's fixes contiguous) in
/// ascending timestamp order, then call ``finish(into:)`` once. Each call appends the bytes it
/// can already write to `out`; memory does not grow with the number of points.
///
/// - `<trkpt lat lon>` carries up to 7 decimals of degrees, then `<ele>` (meters, 2 decimals)
///   when the altitude is known, `<time>` (RFC 3339 UTC with milliseconds), and what GPX 1.1 has
///   no element for in `<extensions>` of this server's namespace ``extensionNamespace``
///   (prefix `fod`, declared on the root): `<fod:speed>` (m/s), `<fod:course>` (degrees
///   clockwise from true north), `<fod:accuracy>` (horizontal, meters) and `<fod:battery>`
///   (percent), each up to 7 decimals and only when the fix has it (no `<extensions>` at all
///   when it has none). The import reads them back. GPX longitudes lie in [-180, 180), so 180
///   is written as the same meridian -180.
/// - Metadata precedes the tracks in GPX, so the caller supplies it up front; `<bounds>` is
///   written only when given (compute it with ``GeoBoundsAccumulator`` if needed). A box crossing
///   the antimeridian is written with `minlon > maxlon`; an east edge of 180 is written as
///   179.9999999 to stay inside the schema's longitude range.
/// - Names and text are XML-escaped (`&`, `<`, `>`, quotes, and characters XML cannot carry are
///   replaced by U+FFFD).
/// - Points with invalid coordinates are skipped and counted in ``skippedPointCount``.
public struct GPXExport: Sendable {
    /// The XML namespace of the `<extensions>` children this writer adds (prefix `fod`).
    public static let extensionNamespace = "urn:find-our-devices:gpx:1"

    /// The optional `<metadata>` content.
    public struct Metadata: Sendable, Hashable {
        /// The document name, e.g. the group or device.
        public var name: String?
        /// The creation time, in ms since 1970.
        public var timeMilliseconds: Int64?
        /// The bounds of the data (degrees).
        public var bounds: GeoBounds?

        public init(name: String? = nil, timeMilliseconds: Int64? = nil, bounds: GeoBounds? = nil) {
            self.name = name
            self.timeMilliseconds = timeMilliseconds
            self.bounds = bounds
        }
    }

    /// Fixes further apart than this start a new `<trkseg>`; nil never splits.
    public let gapMilliseconds: Int64?
    /// Tracks (devices) started so far.
    public private(set) var trackCount = 0
    /// Track points written so far.
    public private(set) var pointCount = 0
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { admission.skipped }
    private var admission = PointAdmission()

    private let metadata: Metadata
    private var started = false
    private var finished = false
    private var currentDeviceID: String?
    private var lastTimestamp: Int64 = 0
    private var numbers = DecimalFormatter()

    /// A writer with the given metadata and segment gap.
    public init(metadata: Metadata = Metadata(),
                gapMilliseconds: Int64? = GeoJSONExport.defaultGapMilliseconds) {
        self.metadata = metadata
        self.gapMilliseconds = gapMilliseconds
    }

    /// Writes one fix, opening a new track on a device change or a new segment after a gap.
    public mutating func add(_ point: ExportPoint, into out: inout [UInt8]) {
        guard admission.admits(point, finished: finished) else { return }
        beginIfNeeded(into: &out)
        if point.deviceID != currentDeviceID {
            if currentDeviceID != nil { out.append(ascii: "    </trkseg>\n  </trk>\n") }
            out.append(ascii: "  <trk>\n    <name>")
            XMLText.appendEscaped(point.deviceName, to: &out)
            out.append(ascii: "</name>\n    <trkseg>\n")
            currentDeviceID = point.deviceID
            trackCount += 1
        } else if let gapMilliseconds {
            let (elapsed, overflow) = point.timestamp.subtractingReportingOverflow(lastTimestamp)
            if overflow || elapsed > gapMilliseconds {
                out.append(ascii: "    </trkseg>\n    <trkseg>\n")
            }
        }
        lastTimestamp = point.timestamp
        out.append(ascii: "      <trkpt lat=\"")
        numbers.append(point.latitude, fractionDigits: 7, to: &out)
        out.append(ascii: "\" lon=\"")
        numbers.append(point.longitude == 180 ? -180 : point.longitude, fractionDigits: 7, to: &out)
        out.append(ascii: "\">")
        if let altitude = point.knownAltitude {
            out.append(ascii: "<ele>")
            numbers.append(altitude, fractionDigits: 2, to: &out)
            out.append(ascii: "</ele>")
        }
        out.append(ascii: "<time>")
        Timestamp.appendRFC3339(millisecondsSince1970: point.timestamp, to: &out)
        out.append(ascii: "</time>")
        appendExtensions(point.details, into: &out)
        out.append(ascii: "</trkpt>\n")
        pointCount += 1
    }

    /// `<extensions>` with the measurements GPX 1.1 has no element for, when the fix has any.
    private mutating func appendExtensions(_ details: ExportPointDetails, into out: inout [UInt8]) {
        let speed = details.speed.finite, course = details.heading.finite
        let accuracy = details.accuracy.finite, battery = details.battery.finite
        guard speed != nil || course != nil || accuracy != nil || battery != nil else { return }
        out.append(ascii: "<extensions>")
        if let speed { appendElement("speed", speed, into: &out) }
        if let course { appendElement("course", course, into: &out) }
        if let accuracy { appendElement("accuracy", accuracy, into: &out) }
        if let battery { appendElement("battery", battery, into: &out) }
        out.append(ascii: "</extensions>")
    }

    private mutating func appendElement(_ name: String, _ value: Double, into out: inout [UInt8]) {
        out.append(ascii: "<fod:")
        out.append(ascii: name)
        out.append(ascii: ">")
        numbers.append(value, fractionDigits: 7, to: &out)
        out.append(ascii: "</fod:")
        out.append(ascii: name)
        out.append(ascii: ">")
    }

    /// Closes the open track and the document. Later calls write nothing.
    public mutating func finish(into out: inout [UInt8]) {
        guard !finished else { return }
        beginIfNeeded(into: &out)
        if currentDeviceID != nil { out.append(ascii: "    </trkseg>\n  </trk>\n") }
        out.append(ascii: "</gpx>\n")
        finished = true
    }

    private mutating func beginIfNeeded(into out: inout [UInt8]) {
        guard !started else { return }
        started = true
        out.append(ascii: """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Find Our Devices" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:fod="\(Self.extensionNamespace)" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

            """)
        guard metadata.name != nil || metadata.timeMilliseconds != nil || metadata.bounds != nil else { return }
        out.append(ascii: "  <metadata>\n")
        if let name = metadata.name {
            out.append(ascii: "    <name>")
            XMLText.appendEscaped(name, to: &out)
            out.append(ascii: "</name>\n")
        }
        if let time = metadata.timeMilliseconds {
            out.append(ascii: "    <time>\(Timestamp.rfc3339(millisecondsSince1970: time))</time>\n")
        }
        if let bounds = metadata.bounds {
            out.append(ascii: "    <bounds minlat=\"")
            numbers.append(bounds.southDegrees, fractionDigits: 7, to: &out)
            out.append(ascii: "\" minlon=\"")
            numbers.append(Swift.min(bounds.westDegrees, 179.9999999), fractionDigits: 7, to: &out)
            out.append(ascii: "\" maxlat=\"")
            numbers.append(bounds.northDegrees, fractionDigits: 7, to: &out)
            out.append(ascii: "\" maxlon=\"")
            numbers.append(Swift.min(bounds.eastDegrees, 179.9999999), fractionDigits: 7, to: &out)
            out.append(ascii: "\"/>\n")
        }
        out.append(ascii: "  </metadata>\n")
    }
}

extension Optional where Wrapped == Double {
    /// The value when it is present and finite.
    var finite: Double? {
        guard let value = self, value.isFinite else { return nil }
        return value
    }
}
