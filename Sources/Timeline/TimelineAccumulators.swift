import GeoKit

/// A fix prepared for the segmenter: unit vector, weight and accuracy allowance.
struct Sample: Sendable {
    let time: Int64
    let point: S2Point
    let location: TimelinePoint
    /// 1 / max(accuracy, 10 m)²; a fix without accuracy counts as 25 m.
    let weight: Double
    /// Meters of accuracy credited when testing "inside": min(accuracy, stayRadius / 2).
    let slack: Double

    init(_ fix: TimelineFix, stayRadius: Double) {
        time = fix.timestamp
        point = LatLng(degreesLatitude: fix.latitude, longitude: fix.longitude).toPoint()
        location = TimelinePoint(longitude: fix.longitude, latitude: fix.latitude)
        let accuracy = fix.accuracy ?? 25
        let floor = Swift.max(accuracy, 10)
        weight = 1 / (floor * floor)
        slack = Swift.min(fix.accuracy ?? 0, stayRadius / 2)
    }
}

/// Meters between two unit vectors on MongoDB's sphere (R = 6,378,100 m).
@inline(__always)
func meters(_ a: S2Point, _ b: S2Point) -> Double {
    Earth.distance(from: a, to: b).meters
}

/// A weighted sum of unit vectors; its direction is the weighted centre (exact for removal).
struct CentroidSum: Sendable {
    var x = 0.0, y = 0.0, z = 0.0

    mutating func add(_ s: Sample) {
        x += s.point.x * s.weight
        y += s.point.y * s.weight
        z += s.point.z * s.weight
    }

    mutating func remove(_ s: Sample) {
        x -= s.point.x * s.weight
        y -= s.point.y * s.weight
        z -= s.point.z * s.weight
    }

    mutating func add(_ other: CentroidSum) {
        x += other.x
        y += other.y
        z += other.z
    }

    /// The centre, or `fallback` when the sum has no direction (empty, or opposite points).
    func centre(or fallback: S2Point) -> S2Point {
        let p = S2Point(x: x, y: y, z: z)
        let n = p.norm
        return n > 1e-300 && n.isFinite ? p / n : fallback
    }
}

/// The recent moving fixes that could be the start of a stay: every one within the stay radius
/// (plus its allowance) of their centre when it joined. Oldest first; `O(1)` amortised per fix.
struct StayCandidate: Sendable {
    private(set) var samples: [Sample] = []
    private var head = 0
    private(set) var sum = CentroidSum()

    var isEmpty: Bool { head == samples.count }
    var count: Int { samples.count - head }
    var first: Sample? { isEmpty ? nil : samples[head] }
    var last: Sample? { isEmpty ? nil : samples[samples.count - 1] }
    var members: ArraySlice<Sample> { samples[head...] }
    var span: Int64 {
        guard let first, let last else { return 0 }
        return last.time - first.time
    }

    var centre: S2Point { sum.centre(or: last?.point ?? S2Point(x: 1, y: 0, z: 0)) }

    mutating func append(_ s: Sample) {
        samples.append(s)
        sum.add(s)
    }

    /// Removes and returns the oldest member.
    mutating func removeFirst() -> Sample? {
        guard !isEmpty else { return nil }
        let s = samples[head]
        head += 1
        if isEmpty {
            removeAll()
        } else {
            sum.remove(s)
            // Compact now and then, recomputing the sum so subtraction errors cannot pile up.
            if head >= 1024 && head * 2 >= samples.count {
                samples.removeFirst(head)
                head = 0
                sum = CentroidSum()
                for m in samples { sum.add(m) }
            }
        }
        return s
    }

    mutating func removeAll() {
        samples.removeAll(keepingCapacity: true)
        head = 0
        sum = CentroidSum()
    }
}

/// A stay being built: its centre's sum, span, fix count and radius.
struct StayBuilder: Sendable {
    var sum = CentroidSum()
    var start: Int64
    var end: Int64
    var fixes = 0
    var radius = 0.0
    var centre: S2Point

    /// A stay from a candidate's members, its radius measured against the final centre.
    init(_ candidate: StayCandidate) {
        let members = candidate.members
        start = members.first?.time ?? 0
        end = members.last?.time ?? 0
        sum = candidate.sum
        centre = candidate.centre
        fixes = members.count
        for m in members { radius = Swift.max(radius, meters(m.point, centre)) }
    }

    mutating func add(_ s: Sample) {
        sum.add(s)
        centre = sum.centre(or: centre)
        end = s.time
        fixes += 1
        radius = Swift.max(radius, meters(s.point, centre))
    }

    /// The centre as a public point.
    var location: TimelinePoint {
        let ll = LatLng(centre)
        return TimelinePoint(longitude: ll.lng.degrees, latitude: ll.lat.degrees)
    }

    var stay: Stay { Stay(start: start, end: end, location: location, radius: radius, fixes: fixes) }

    /// Where the trip before this stay ends: its start, at its centre.
    var arrival: TripAnchor { TripAnchor(time: start, point: centre, location: location) }
    /// Where the trip after this stay starts: its end, at its centre.
    var departure: TripAnchor { TripAnchor(time: end, point: centre, location: location) }

    /// `self`, the fixes of a short trip, and `next` as one stay.
    mutating func absorb(tripFixes: Int, then next: StayBuilder) {
        sum.add(next.sum)
        let merged = sum.centre(or: centre)
        radius = Swift.max(radius + meters(centre, merged), next.radius + meters(next.centre, merged))
        centre = merged
        end = next.end
        fixes += tripFixes + next.fixes
    }
}

/// Where a trip starts or ends when a stay is next to it.
struct TripAnchor: Sendable {
    let time: Int64
    let point: S2Point
    let location: TimelinePoint
}

/// A trip being built from its moving fixes: counts and path length only, never the fixes.
struct TripBuilder: Sendable {
    var from: TripAnchor?
    var first: Sample?
    var last: Sample?
    var fixes = 0
    var distance = 0.0

    init(from: TripAnchor?) { self.from = from }

    /// Adds a moving fix. `distance` holds the legs between moving fixes only: the legs from
    /// `from` and to the next stay are added by `trip(to:)`, so `from` can still move.
    mutating func add(_ s: Sample) {
        if let last { distance += meters(last.point, s.point) }
        if first == nil { first = s }
        last = s
        fixes += 1
    }

    /// The same trip starting at `anchor` instead (the stay before it after that stay absorbed
    /// another one); a trip that starts at its own first fix (beside a gap) is unchanged.
    func starting(at anchor: TripAnchor) -> TripBuilder {
        var moved = self
        if from != nil { moved.from = anchor }
        return moved
    }

    /// The trip up to `to` (the next stay), or nil when there is nothing to report: no moving
    /// fix, and not two different stays on either side.
    func trip(to: TripAnchor?) -> Trip? {
        var total = distance
        if let from, let first { total += meters(from.point, first.point) }
        if let to, let previous = last?.point ?? from?.point { total += meters(previous, to.point) }
        guard fixes > 0 || (from != nil && to != nil && total > 0) else { return nil }
        guard let start = from?.time ?? first?.time, let end = to?.time ?? last?.time,
              let origin = from?.location ?? first?.location, let destination = to?.location ?? last?.location else { return nil }
        let seconds = Double(end - start) / 1000
        return Trip(start: start, end: end, fixes: fixes, distance: total,
                    averageSpeed: seconds > 0 ? total / seconds : 0, from: origin, to: destination)
    }
}
