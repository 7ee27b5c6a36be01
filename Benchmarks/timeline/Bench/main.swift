import Glibc
import Timeline
import Timestamps

// fod-timeline-bench [--days 365] [--rounds 5] [--places Data/places-cities1000.bin] [--lookups 200000] [--csv FILE]
//
// 1. Segments a synthetic year of one-minute fixes (525,600 for 365 days): nights at home,
//    a commute by car, a working day at the office, a lunch walk, jitter of ±15 m while still
//    and GPS outliers (0.2% of fixes thrown up to 800 m). Reports the median time of `--rounds` runs.
// 2. With --places: loads the offline place names, builds the cell index, and times
//    nearest-town lookups (20 km) at random points near places and anywhere on Earth.

var arguments = CommandLine.arguments.dropFirst()
var options: [String: String] = [:]
while let key = arguments.popFirst() {
    guard key.hasPrefix("--"), let value = arguments.popFirst() else { print("usage: fod-timeline-bench [--days N] [--rounds N] [--places FILE] [--lookups N]"); exit(2) }
    options[String(key.dropFirst(2))] = value
}
let days = options["days"].flatMap(Int.init) ?? 365
let rounds = max(1, options["rounds"].flatMap(Int.init) ?? 5)

/// SplitMix64, so every run segments the same track.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }
}

let metersPerDegree = 111_318.845
func offset(_ p: (Double, Double), east: Double, north: Double) -> (Double, Double) {
    (p.0 + east / (metersPerDegree * cos(p.1 * .pi / 180)), p.1 + north / metersPerDegree)
}

func year(days: Int) -> [TimelineFix] {
    var random = Random(state: 42)
    let home = (11.5755, 48.1374), office = (11.6200, 48.1770), lunch = (11.6150, 48.1790)
    let start: Int64 = 1_704_067_200_000  // 2024-01-01T00:00:00Z
    var fixes: [TimelineFix] = []
    fixes.reserveCapacity(days * 1440)
    for day in 0..<days {
        for minute in 0..<1440 {
            let t = start + Int64(day * 1440 + minute) * 60_000
            let place: (Double, Double)
            switch minute {
            case 0..<450, 1140..<1440: place = home
            case 450..<480: // drive to the office
                let f = Double(minute - 450) / 30
                place = (home.0 + (office.0 - home.0) * f, home.1 + (office.1 - home.1) * f)
            case 720..<735: let f = Double(minute - 720) / 15; place = (office.0 + (lunch.0 - office.0) * f, office.1 + (lunch.1 - office.1) * f)
            case 735..<765: place = lunch
            case 765..<780: let f = Double(minute - 765) / 15; place = (lunch.0 + (office.0 - lunch.0) * f, lunch.1 + (office.1 - lunch.1) * f)
            case 1110..<1140:
                let f = Double(minute - 1110) / 30
                place = (office.0 + (home.0 - office.0) * f, office.1 + (home.1 - office.1) * f)
            default: place = office
            }
            var p = offset(place, east: random.uniform(-15, 15), north: random.uniform(-15, 15))
            if random.unit() < 0.002 { p = offset(p, east: random.uniform(-800, 800), north: random.uniform(-800, 800)) }
            fixes.append(TimelineFix(timestamp: t, longitude: p.0, latitude: p.1, accuracy: random.uniform(5, 40)))
        }
    }
    return fixes
}

let fixes = year(days: days)
// --csv FILE: writes the same year as CSV (for Benchmarks/timeline/run.sh, which imports it and
// times the timeline endpoint) and stops.
if let path = options["csv"] {
    guard let out = fopen(path, "w") else { print("cannot write \(path)"); exit(1) }
    fputs("timestamp,latitude,longitude,accuracy\n", out)
    for f in fixes { fputs("\(f.timestamp),\(fixed(f.latitude, 7)),\(fixed(f.longitude, 7)),\(fixed(f.accuracy ?? 0, 1))\n", out) }
    fclose(out)
    print("timeline: wrote \(fixes.count) fixes to \(path)")
    exit(0)
}
var times: [Double] = []
var segments: [TimelineSegment] = []
for _ in 0..<rounds {
    let t0 = Timestamp.monotonicNanoseconds()
    segments = TimelineSegmenter.segments(of: fixes)
    times.append(Double(Timestamp.monotonicNanoseconds() - t0) / 1e9)
}
times.sort()
let stays = segments.filter { if case .stay = $0 { true } else { false } }.count
print("timeline: \(fixes.count) fixes (\(days) days) → \(segments.count) segments (\(stays) stays, \(segments.count - stays) trips)")
print("timeline: median \(fixed(times[times.count / 2], 3)) s, min \(fixed(times[0], 3)) s over \(rounds) rounds; \(fixed(Double(fixes.count) / times[times.count / 2] / 1000, 0))k fixes/s")

if let path = options["places"] {
    guard let file = fopen(path, "rb") else { print("cannot open \(path)"); exit(1) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    fclose(file)
    let t0 = Timestamp.monotonicNanoseconds()
    let index: NearestPlace
    do { index = try NearestPlace(placesFile: bytes) } catch { print("\(error)"); exit(1) }
    let loadSeconds = Double(Timestamp.monotonicNanoseconds() - t0) / 1e9
    print("places: \(index.places.count) places loaded and indexed in \(fixed(loadSeconds, 3)) s (cell level \(index.level))")
    let lookups = options["lookups"].flatMap(Int.init) ?? 200_000
    var random = Random(state: 7)
    for (label, nearPlaces) in [("near places (≤ 30 km)", true), ("anywhere on Earth", false)] {
        var queries: [TimelinePoint] = []
        for _ in 0..<lookups {
            if nearPlaces, let place = index.places.randomElement(using: &random) {
                let p = offset((place.location.longitude, place.location.latitude), east: random.uniform(-30_000, 30_000), north: random.uniform(-30_000, 30_000))
                queries.append(TimelinePoint(longitude: max(-180, min(180, p.0)), latitude: max(-90, min(90, p.1))))
            } else {
                queries.append(TimelinePoint(longitude: random.uniform(-180, 180), latitude: asin(random.uniform(-1, 1)) * 180 / .pi))
            }
        }
        let t1 = Timestamp.monotonicNanoseconds()
        var found = 0
        for q in queries where index.nearest(to: q) != nil { found += 1 }
        let micros = Double(Timestamp.monotonicNanoseconds() - t1) / 1e3 / Double(lookups)
        print("places: \(lookups) lookups \(label): \(fixed(micros, 2)) µs each, \(found) found within 20 km")
    }
}

extension Random: RandomNumberGenerator {}

/// `value` with `digits` decimals (printf's %.*f).
func fixed(_ value: Double, _ digits: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([Int32(digits), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
