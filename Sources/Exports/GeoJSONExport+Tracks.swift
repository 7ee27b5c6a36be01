import Timestamps

/// A position on a track: a fix (with its time) or an interpolated antimeridian crossing.
struct TrackPosition: Sendable, Equatable {
    /// Degrees.
    var longitude: Double
    /// Degrees.
    var latitude: Double
    /// Meters, when known.
    var altitude: Double?
    /// The fix's time in ms since 1970, or nil for an interpolated position.
    var timestamp: Int64?

    init(longitude: Double, latitude: Double, altitude: Double?, timestamp: Int64?) {
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude
        self.timestamp = timestamp
    }

    init(_ point: ExportPoint) {
        self.init(longitude: point.longitude, latitude: point.latitude,
                  altitude: point.knownAltitude, timestamp: point.timestamp)
    }

    func samePlace(as other: TrackPosition) -> Bool {
        longitude == other.longitude && latitude == other.latitude
    }

    /// Where the segment from `self` to `next` crosses the antimeridian, when consecutive
    /// longitudes differ by more than 180° (the shorter way round crosses ±180): the position
    /// ending the current part (at ±180) and the one starting the next (at ∓180), at the latitude
    /// (and altitude, when both are known) linearly interpolated in degrees.
    func antimeridianCrossing(to next: TrackPosition) -> (end: TrackPosition, start: TrackPosition)? {
        let delta = next.longitude - longitude
        guard delta.magnitude > 180 else { return nil }
        let edge: Double = delta > 0 ? -180 : 180  // the side `self` is on
        let nextUnwrapped = next.longitude - (delta > 0 ? 360 : -360)
        let t = (edge - longitude) / (nextUnwrapped - longitude)  // in [0, 1]
        let latitude = self.latitude + t * (next.latitude - self.latitude)
        var altitude: Double?
        if let a = self.altitude, let b = next.altitude {
            altitude = a + t * (b - a)
        }
        return (TrackPosition(longitude: edge, latitude: latitude, altitude: altitude, timestamp: nil),
                TrackPosition(longitude: -edge, latitude: latitude, altitude: altitude, timestamp: nil))
    }
}

/// The device track being written. Invariants: `partLength` counts the positions of the current
/// part including `pending`; `pending != nil` iff `partLength == 1`; `featureOpen` once a part
/// reached two positions; `drawnFixCount` counts fixes actually written.
struct TrackState: Sendable {
    let deviceID: String
    let deviceName: String
    let userID: String
    let displayName: String
    /// The last fix received (drawn or not), for gap and antimeridian tests.
    var lastFix: TrackPosition
    var featureOpen = false
    var partLength = 0
    var pending: TrackPosition?
    var drawnFixCount = 0
    var firstDrawnTimestamp: Int64?
    var lastDrawnTimestamp: Int64?

    init(_ point: ExportPoint) {
        deviceID = point.deviceID
        deviceName = point.deviceName
        userID = point.userID
        displayName = point.displayName
        lastFix = TrackPosition(point)
    }
}

extension GeoJSONExport {
    private var splitsParts: Bool {
        if case .multiLineString = trackLayout { return true }
        return false
    }

    /// Routes a valid fix to its device's track, starting a new track on a device change.
    mutating func appendTrackFix(_ point: ExportPoint) {
        let position = TrackPosition(point)
        guard let current = track, current.deviceID == point.deviceID else {
            closeTrack()
            track = TrackState(point)
            appendToPart(position)
            return
        }
        if case .multiLineString(let gapMilliseconds) = trackLayout {
            let previous = current.lastFix
            let (elapsed, overflow) = point.timestamp.subtractingReportingOverflow(previous.timestamp ?? point.timestamp)
            if let gapMilliseconds, overflow || elapsed > gapMilliseconds {
                endPart()
            } else if let crossing = previous.antimeridianCrossing(to: position) {
                if !crossing.end.samePlace(as: previous) { appendToPart(crossing.end) }
                endPart()
                if !crossing.start.samePlace(as: position) { appendToPart(crossing.start) }
            }
        }
        track?.lastFix = position
        appendToPart(position)
    }

    /// Adds a position to the current part, writing the feature and part openings once the part
    /// has two positions.
    private mutating func appendToPart(_ position: TrackPosition) {
        guard var state = track else { return }
        track = nil  // keep `state` uniquely referenced while it changes
        defer { track = state }
        if state.partLength == 0 {
            state.pending = position
            state.partLength = 1
            return
        }
        if state.partLength == 1 {
            if !state.featureOpen {
                openTrackFeature()
                state.featureOpen = true
            }
            if splitsParts { json.beginArray() }
            if let pending = state.pending {
                writeTrackPosition(pending, state: &state)
            }
            state.pending = nil
        }
        writeTrackPosition(position, state: &state)
        state.partLength += 1
    }

    private mutating func writeTrackPosition(_ position: TrackPosition, state: inout TrackState) {
        writePosition(position)
        if let timestamp = position.timestamp {
            state.drawnFixCount += 1
            if state.firstDrawnTimestamp == nil { state.firstDrawnTimestamp = timestamp }
            state.lastDrawnTimestamp = timestamp
        }
    }

    /// Ends the current part: closes it when drawn, drops a lone pending position.
    private mutating func endPart() {
        guard var state = track else { return }
        if state.partLength >= 2 && splitsParts { json.endArray() }
        state.partLength = 0
        state.pending = nil
        track = state
    }

    private mutating func openTrackFeature() {
        json.beginObject()
        json.key("type"); json.string("Feature")
        json.key("geometry")
        json.beginObject()
        json.key("type"); json.string(splitsParts ? "MultiLineString" : "LineString")
        json.key("coordinates")
        json.beginArray()
    }

    /// Ends the open track: closes its feature with the properties, or drops it when no part had
    /// two positions.
    mutating func closeTrack() {
        guard track != nil else { return }
        endPart()
        guard let state = track else { return }
        track = nil
        guard state.featureOpen else { return }
        json.endArray()  // coordinates
        json.endObject()  // geometry
        json.key("properties")
        json.beginObject()
        json.key("kind"); json.string("track")
        writeIdentity(deviceID: state.deviceID, deviceName: state.deviceName,
                      userID: state.userID, displayName: state.displayName)
        if let first = state.firstDrawnTimestamp, let last = state.lastDrawnTimestamp {
            json.key("start"); json.string(Timestamp.rfc3339(millisecondsSince1970: first))
            json.key("end"); json.string(Timestamp.rfc3339(millisecondsSince1970: last))
        }
        json.key("pointCount"); json.number(state.drawnFixCount)
        json.endObject()
        json.endObject()  // feature
        featureCount += 1
    }
}
