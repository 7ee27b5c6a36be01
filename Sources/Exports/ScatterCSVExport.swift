import Timestamps

/// Streams the CSV form of a geospatial scatter chart (RFC 4180):
///
///     lon,lat,timestamp,deviceId,deviceName,userId,displayName,color
///     4.895168,52.370216,2026-11-30T08:15:00.000Z,d_1,"Pixel, work",u_1,Ann,#e6194b
///
/// - Records end with CRLF; the header is always written (also for no points).
/// - A field containing a comma, a double quote, CR or LF is enclosed in double quotes, with
///   inner quotes doubled; other fields are written as they are. Text is UTF-8 without BOM.
/// - Degrees have at most 7 decimals; `timestamp` is RFC 3339 UTC with milliseconds; `color` is
///   the series colour (`#rrggbb`) for the chosen ``ScatterColorField``.
/// - Points must arrive sorted by (series key, timestamp), as for ``ScatterJSONExport``, for
///   the colours to match the other scatter formats. Rows keep the input order.
/// - Text fields that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`,
///   tab or CR) get a leading `'`: names are chosen by other group members, so an export opened
///   in a spreadsheet must not execute them.
/// - Points with invalid coordinates are skipped and counted.
public struct ScatterCSVExport: Sendable {
    /// The header line's fields.
    public static let columns = ["lon", "lat", "timestamp", "deviceId", "deviceName", "userId", "displayName", "color"]

    /// The field that defines series (and so colours).
    public let colorField: ScatterColorField
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { points.skipped }
    private var points: ScatterPoints
    private var numbers = DecimalFormatter()
    private var started = false
    private var finished = false

    public init(colorField: ScatterColorField) {
        self.colorField = colorField
        points = ScatterPoints(colorField: colorField)
    }

    /// The series seen so far, in order of first appearance.
    public var series: [ScatterSeries] { points.series }

    /// Writes one record.
    public mutating func add(_ point: ExportPoint, into out: inout [UInt8]) {
        guard let color = points.take(point, finished: finished)?.series.color else { return }
        beginIfNeeded(into: &out)
        numbers.append(point.longitude, fractionDigits: 7, to: &out)
        out.append(UInt8(ascii: ","))
        numbers.append(point.latitude, fractionDigits: 7, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(ascii: Timestamp.rfc3339(millisecondsSince1970: point.timestamp))
        for field in [point.deviceID, point.deviceName, point.userID, point.displayName] {
            out.append(UInt8(ascii: ","))
            Self.appendField(field, to: &out)
        }
        out.append(UInt8(ascii: ","))
        out.append(ascii: color.hex)
        out.append(ascii: "\r\n")
    }

    /// Writes the header if nothing was written yet. Later calls write nothing.
    public mutating func finish(into out: inout [UInt8]) {
        guard !finished else { return }
        beginIfNeeded(into: &out)
        finished = true
    }

    private mutating func beginIfNeeded(into out: inout [UInt8]) {
        guard !started else { return }
        started = true
        out.append(ascii: Self.columns.joined(separator: ","))
        out.append(ascii: "\r\n")
    }

    /// Appends one text field: defused if a spreadsheet would read it as a formula, then quoted
    /// per RFC 4180 when it contains `,` `"` CR or LF.
    static func appendField(_ rawField: String, to out: inout [UInt8]) {
        let formulaStarts: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D]
        let field = rawField.utf8.first.map(formulaStarts.contains) == true ? "'" + rawField : rawField
        let needsQuotes = field.utf8.contains { byte in
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 0x0D || byte == 0x0A
        }
        guard needsQuotes else {
            out.append(contentsOf: field.utf8)
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in field.utf8 {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }
}
