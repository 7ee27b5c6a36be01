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
/// reached two positions, until the feature is closed; `loneFixes` is empty while no feature is
/// open (a lone fix then becomes a `Point` at once).
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
    /// The last position written into the open feature (where a continuation feature starts).
    var lastWritten: TrackPosition?
    /// The open feature's per-vertex times and the fixes it drew.
    var vertices = FeatureVertices()
    /// Fixes that joined no line while a feature was open: written as `Point`s after it closes.
    var loneFixes: [TrackPosition] = []

    init(_ point: ExportPoint) {
        deviceID = point.deviceID
        deviceName = point.deviceName
        userID = point.userID
        displayName = point.displayName
        lastFix = TrackPosition(point)
    }
}

/// The times of the open track feature's vertices (for `coordTimes`), where its parts start,
/// and the fixes it drew. Bounded by `GeoJSONExport.maxFeaturePositions` vertices.
struct FeatureVertices: Sendable {
    /// One entry per vertex in writing order; `notAFix` for a position that is not a fix (an
    /// antimeridian crossing, or the vertex repeated at the start of a continuation feature).
    var times: [Int64] = []
    /// Indices into `times` where each part starts.
    var partStarts: [Int] = []
    var fixCount = 0
    var firstTime: Int64?
    var lastTime: Int64?

    static let notAFix = Int64.min

    /// Empties it for the next feature, keeping the arrays' storage.
    mutating func removeAll() {
        times.removeAll(keepingCapacity: true)
        partStarts.removeAll(keepingCapacity: true)
        fixCount = 0
        firstTime = nil
        lastTime = nil
    }

    var retainedByteCount: Int { times.capacity * 8 + partStarts.capacity * 8 }
}

extension GeoJSONExport {
    /// Vertices a track feature holds at most: a longer track continues in another feature of
    /// the same device (starting at the last vertex of the previous one), so the times kept for
    /// `coordTimes` stay bounded (80 KB).
    public static let maxFeaturePositions = 10_000
    /// Lone fixes held while a track feature is open; one more closes the feature early.
    public static let maxWaitingLoneFixes = 1_000

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
                state.vertices.times.reserveCapacity(Self.maxFeaturePositions)
            }
            if splitsParts { json.beginArray() }
            state.vertices.partStarts.append(state.vertices.times.count)
            if let pending = state.pending {
                writeTrackPosition(pending, state: &state)
            }
            state.pending = nil
        }
        writeTrackPosition(position, state: &state)
        state.partLength += 1
        if state.vertices.times.count >= Self.maxFeaturePositions { continueInNewFeature(&state) }
    }

    private mutating func writeTrackPosition(_ position: TrackPosition, state: inout TrackState) {
        writePosition(position)
        state.lastWritten = position
        guard let timestamp = position.timestamp else {
            state.vertices.times.append(FeatureVertices.notAFix)
            return
        }
        state.vertices.times.append(timestamp)
        state.vertices.fixCount += 1
        if state.vertices.firstTime == nil { state.vertices.firstTime = timestamp }
        state.vertices.lastTime = timestamp
    }

    /// The open feature is full: it ends here, and the part goes on in a new feature that starts
    /// at the same position (not a fix of its own there: its time is `null`).
    private mutating func continueInNewFeature(_ state: inout TrackState) {
        if splitsParts { json.endArray() }
        closeFeature(&state)
        if var last = state.lastWritten {
            last.timestamp = nil
            state.pending = last
            state.partLength = 1
        } else {
            state.partLength = 0
        }
    }

    /// Ends the current part: closes it when drawn; a lone fix becomes a `Point` (at once, or
    /// after the open feature), a lone position that is no fix is dropped.
    private mutating func endPart() {
        guard var state = track else { return }
        track = nil
        defer { track = state }
        if state.partLength >= 2 && splitsParts { json.endArray() }
        if state.partLength == 1, let lone = state.pending, lone.timestamp != nil {
            if state.featureOpen {
                state.loneFixes.append(lone)
                if state.loneFixes.count >= Self.maxWaitingLoneFixes { closeFeature(&state) }
            } else {
                writeFixPoint(lone, of: state)
            }
        }
        state.partLength = 0
        state.pending = nil
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

    /// Ends the open track: closes its feature and writes its lone fixes.
    mutating func closeTrack() {
        guard track != nil else { return }
        endPart()
        guard var state = track else { return }
        track = nil
        if state.featureOpen { closeFeature(&state) }
    }

    /// Closes the open feature (its coordinates, then the properties with `coordTimes`), then
    /// writes the lone fixes that waited for it as `Point`s.
    private mutating func closeFeature(_ state: inout TrackState) {
        guard state.featureOpen else { return }
        json.endArray()  // coordinates
        json.endObject()  // geometry
        json.key("properties")
        json.beginObject()
        json.key("kind"); json.string("track")
        writeIdentity(deviceID: state.deviceID, deviceName: state.deviceName,
                      userID: state.userID, displayName: state.displayName)
        if let first = state.vertices.firstTime, let last = state.vertices.lastTime {
            json.key("start"); json.string(Timestamp.rfc3339(millisecondsSince1970: first))
            json.key("end"); json.string(Timestamp.rfc3339(millisecondsSince1970: last))
        }
        json.key("pointCount"); json.number(state.vertices.fixCount)
        json.key("coordTimes")
        writeCoordTimes(state.vertices)
        json.endObject()
        json.endObject()  // feature
        featureCount += 1
        state.featureOpen = false
        state.vertices.removeAll()
        for lone in state.loneFixes { writeFixPoint(lone, of: state) }
        state.loneFixes.removeAll(keepingCapacity: true)
    }

    /// `coordTimes` as togeojson writes it: an array of times parallel to the coordinates (one
    /// array per part for a `MultiLineString`); `null` for a position that is no fix.
    private mutating func writeCoordTimes(_ vertices: FeatureVertices) {
        func writeTimes(_ range: Range<Int>) {
            json.beginArray()
            for time in vertices.times[range] {
                if time == FeatureVertices.notAFix {
                    json.null()
                } else {
                    json.rawValue { bytes in
                        bytes.append(UInt8(ascii: "\""))
                        Timestamp.appendRFC3339(millisecondsSince1970: time, to: &bytes)
                        bytes.append(UInt8(ascii: "\""))
                    }
                }
            }
            json.endArray()
        }
        guard splitsParts else {
            writeTimes(0..<vertices.times.count)
            return
        }
        json.beginArray()
        for (k, start) in vertices.partStarts.enumerated() {
            let end = k + 1 < vertices.partStarts.count ? vertices.partStarts[k + 1] : vertices.times.count
            writeTimes(start..<end)
        }
        json.endArray()
    }

    /// A fix that joins no line, as a `Point` feature of kind `fix`.
    private mutating func writeFixPoint(_ position: TrackPosition, of state: TrackState) {
        guard let timestamp = position.timestamp else { return }  // only fixes are written (their callers check)
        writePointFeature(position, kind: "fix", deviceID: state.deviceID, deviceName: state.deviceName,
                          userID: state.userID, displayName: state.displayName, timestamp: timestamp)
    }
}
