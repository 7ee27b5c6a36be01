import Glibc
import TestRandom
import Timeline

/// Builds synthetic tracks with known answers: stays with jitter, straight moves at a speed.
struct TrackBuilder {
    static let metersPerDegree = 111_318.845  // one degree of arc on R = 6,378,100 m
    var random: SplitMix64
    var time: Int64
    var fixes: [TimelineFix] = []

    init(seed: UInt64, start: Int64 = 1_704_067_200_000) {
        random = SplitMix64(seed: seed)
        time = start
    }

    /// `point` moved `east` / `north` meters.
    static func offset(_ point: TimelinePoint, east: Double, north: Double) -> TimelinePoint {
        TimelinePoint(longitude: point.longitude + east / (metersPerDegree * cos(point.latitude * .pi / 180)),
                      latitude: point.latitude + north / metersPerDegree)
    }

    /// Fixes every `every` seconds for `minutes` around `point`, uniformly within `jitter` meters.
    mutating func stay(at point: TimelinePoint, minutes: Double, every seconds: Double = 60, jitter: Double = 10,
                       accuracy: Double? = 10) {
        let end = time + Int64(minutes * 60_000)
        while time <= end {
            let r = jitter * random.unit().squareRoot(), a = random.uniform(0, 2 * .pi)
            fixes.append(TimelineFix(timestamp: time, longitude: 0, latitude: 0, accuracy: accuracy))
            let p = Self.offset(point, east: r * cos(a), north: r * sin(a))
            fixes[fixes.count - 1].longitude = p.longitude
            fixes[fixes.count - 1].latitude = p.latitude
            time += Int64(seconds * 1000)
        }
    }

    /// Moves in a straight line from `from` to `to` at `speed` m/s, a fix every `every` seconds
    /// (the first one step after `from`, the last at `to`).
    mutating func move(from: TimelinePoint, to: TimelinePoint, speed: Double, every seconds: Double = 60) {
        let east = (to.longitude - from.longitude) * Self.metersPerDegree * cos(from.latitude * .pi / 180)
        let north = (to.latitude - from.latitude) * Self.metersPerDegree
        let length = (east * east + north * north).squareRoot()
        let steps = max(1, Int((length / speed / seconds).rounded()))
        for k in 1...steps {
            let f = Double(k) / Double(steps)
            let p = Self.offset(from, east: east * f, north: north * f)
            fixes.append(TimelineFix(timestamp: time, longitude: p.longitude, latitude: p.latitude, accuracy: 8))
            time += Int64(length / speed / Double(steps) * 1000)
        }
    }

    mutating func silence(minutes: Double) { time += Int64(minutes * 60_000) }
}

extension TimelineSegment {
    var stay: Stay? { if case .stay(let s) = self { s } else { nil } }
    var trip: Trip? { if case .trip(let t) = self { t } else { nil } }
    var kind: String { stay != nil ? "stay" : "trip" }
}

/// Meters between two points (equirectangular; fine for the few km of a test track).
func metersBetween(_ a: TimelinePoint, _ b: TimelinePoint) -> Double {
    let east = (a.longitude - b.longitude) * TrackBuilder.metersPerDegree * cos(a.latitude * .pi / 180)
    let north = (a.latitude - b.latitude) * TrackBuilder.metersPerDegree
    return (east * east + north * north).squareRoot()
}
