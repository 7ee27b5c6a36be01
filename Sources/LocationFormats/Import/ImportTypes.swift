import ErrorCodes

/// The history file formats `HistoryImporter` reads, detected from the content.
public enum ImportFormat: String, Sendable, Equatable, CaseIterable {
    /// Google Takeout `Records.json`: `{"locations": [{"latitudeE7", "longitudeE7", "timestamp"
    /// | "timestampMs", "accuracy"?, "altitude"?, "velocity"?, "heading"?, ...}]}`.
    case googleRecords = "google-records"
    /// Google Takeout Semantic Location History: `{"timelineObjects": [{"placeVisit" | "activitySegment"}]}`.
    case googleSemantic = "google-semantic"
    /// The on-device Timeline export (Android `{"semanticSegments", "rawSignals"}`, or iOS's array
    /// of segments), points written `"48.1°, 11.5°"` or `"geo:48.1,11.5"`.
    case googleTimeline = "google-timeline"
    /// GPX 1.0/1.1 (`trkpt`, `rtept`, `wpt`).
    case gpx
    /// GeoJSON FeatureCollection or Feature (Points, LineStrings with per-vertex times).
    case geojson
    /// CSV with a header row.
    case csv
    /// This server's own fixes: `{"locations": [{"location": [lon, lat], "timestamp", ...}]}`
    /// (the body of `POST /v1/devices/{id}/locations`, or pages of `GET …/locations`) or an array of them.
    case native
    /// This server's NDJSON export (`export.ndjson`): one native fix object per line, read back
    /// exactly (ids kept, no id derived: a fix without one is a duplicate by its timestamp).
    case ndjson
    /// The OwnTracks Recorder's month files (`YYYY-MM.rec`): lines of `<ISO time>\t<topic
    /// tag>\t<JSON message>`; `_type: location` messages are fixes (as the OwnTracks endpoint
    /// reads them, duplicates by timestamp as for the app), other messages are skipped.
    case owntracksRecorder = "owntracks-recorder"

    /// The short tag that starts client ids derived for this format's fixes.
    var clientIDTag: String {
        switch self {
        case .googleRecords: "gr"
        case .googleSemantic: "gs"
        case .googleTimeline: "gt"
        case .gpx: "gpx"
        case .geojson: "gj"
        case .csv: "csv"
        case .native: "fod"
        case .ndjson: "nd"
        case .owntracksRecorder: "otr"
        }
    }

    /// Whether a fix without its own id gets one derived from its content (`ImportPointID`).
    /// Not for this server's NDJSON (which must read back exactly as exported) nor the Recorder's
    /// files (OwnTracks fixes carry no id; the app's own rule, one fix per timestamp, applies).
    var derivesClientIDs: Bool {
        switch self {
        case .ndjson, .owntracksRecorder: false
        default: true
        }
    }
}

/// How an import reads and validates.
public struct ImportOptions: Sendable, Equatable {
    /// The validation rules of native ingest (bounds, time window, ranges).
    public var rules: FixRules
    /// "Now" for the time window, milliseconds since 1970.
    public var now: Int64
    /// Fixes per batch returned by `HistoryImporter.nextBatch()` (default 5,000).
    public var batchSize: Int
    /// Largest single record (a JSON array element, a GPX point, a CSV line) in bytes; a larger
    /// one is skipped and rejected as `record_too_large` (default 16 MiB).
    public var maxRecordBytes: Int
    /// Deepest JSON nesting accepted (default 64) and longest JSON string or number (default 1 MiB).
    public var jsonLimits: JSONLimits
    /// Rejection samples kept in the summary (default 10 in all, at most 3 per error code).
    public var maxSamples: Int
    public var maxSamplesPerCode: Int

    public struct JSONLimits: Sendable, Equatable {
        public var maxDepth: Int
        public var maxTokenBytes: Int
        public init(maxDepth: Int = 64, maxTokenBytes: Int = 1 << 20) {
            self.maxDepth = maxDepth
            self.maxTokenBytes = maxTokenBytes
        }
    }

    public init(rules: FixRules = .standard, now: Int64, batchSize: Int = 5_000, maxRecordBytes: Int = 16 << 20,
                jsonLimits: JSONLimits = JSONLimits(), maxSamples: Int = 10, maxSamplesPerCode: Int = 3) {
        self.rules = rules
        self.now = now
        self.batchSize = max(1, batchSize)
        self.maxRecordBytes = max(1024, maxRecordBytes)
        self.jsonLimits = jsonLimits
        self.maxSamples = max(0, maxSamples)
        self.maxSamplesPerCode = max(0, maxSamplesPerCode)
    }
}

/// A point of the file that was not imported: its position among all the file's points (in
/// file order, from 0) and why.
public struct ImportRejection: Sendable, Equatable {
    public let index: Int
    public let error: FixError
}

/// Why the rest of a file could not be read (its fixes up to that point are kept): an error with
/// the usual `code` / `message` and the byte offset where reading stopped.
///
/// Codes: `empty_file`, `unknown_format`, `mixed_formats`, `invalid_file` (not valid JSON/XML
/// from that point), `truncated_file` (cut short), `limit_exceeded` (nesting or token size).
public struct ImportStop: Error, Sendable, Equatable, CustomStringConvertible {
    public let error: FixError
    public let offset: Int

    public init(code: ErrorCode, message: String, offset: Int) {
        self.error = FixError(code: code, message: message)
        self.offset = offset
    }

    public var description: String { "\(error.code) at byte \(offset): \(error.message)" }
}

/// What an import read: counts, rejections grouped by code with a few samples, and whether
/// the file was read to its end.
///
/// Invariant: `points == emitted + rejected`; the counts in `rejectedByCode` add up to `rejected`.
public struct ImportSummary: Sendable, Equatable {
    /// The detected format (nil until the content decided it, e.g. for an empty file).
    public var format: ImportFormat?
    /// Points found in the file, valid or not.
    public var points = 0
    /// Points turned into fixes (handed out by `nextBatch()`).
    public var emitted = 0
    /// Points rejected, by error code.
    public var rejected = 0
    /// Records that are no location and no error, passed over (OwnTracks Recorder lines of
    /// another `_type`: transitions, waypoints, cards, status...). Not points.
    public var skipped = 0
    public var rejectedByCode: [ErrorCode: Int] = [:]
    /// The first rejections (see `ImportOptions.maxSamples`), in file order.
    public var samples: [ImportRejection] = []
    /// Set when reading stopped before the end of the file.
    public var stopped: ImportStop?
    /// Bytes consumed so far (for progress).
    public var bytesRead = 0

    public init() {}
}
