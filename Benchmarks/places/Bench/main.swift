import API
import Foundation
import GeoKit
import JSONCore
import LocationFormats
import PostgresClient
import PostgresStore
import SQLiteStore
import Storage
import TestRandom
import Tracking

// fod-places-bench [--groups 1000] [--places 100] [--rounds 6] [--batch 100] [--inflight 32] [--sync full|normal]
//                  [--database postgresql://user@host:port]
//
// --database: the two sides on PostgreSQL instead (two new databases on that server, dropped at
// the end; Benchmarks/postgres/places.sh starts a throwaway server), part 2 then skipped (its
// lookup is the SQLite store's diagnostic).
// Arrivals on ingest (API.md, "Places (geofences) and arrivals"), side by side in one run:
// 1. Batched ingest: two databases with the same `--groups` groups (one member and one phone
//    each), one with `--places` places per group (circles of 50–500 m and polygons around the
//    group's home, on the phone's paths), one without. Every round each phone appends one batch
//    of `--batch` fixes of its walk (`--inflight` appends in flight, group-committed) to one
//    database, then the same to the other (order alternating). A first round, reported apart
//    and not in the totals, is each phone's first append in its group, which sets its
//    baseline in every place of the group (silently: a one-time cost per member and group, not
//    the steady rate). Reports fixes/s per side over all timed rounds (total fixes ÷ total time;
//    rounds are even in number so order effects cancel) and their ratio, for the appends alone
//    and until merged into the cell index, plus the place events logged.
// 2. Transition evaluation per fix: the place index's candidate lookup (one read, the probes
//    ingest makes) plus the rule over those candidates, vs a brute-force distance check
//    (`PlaceTransition` over all of the group's places), on the same fixes.

var arguments = CommandLine.arguments.dropFirst()
var options: [String: String] = [:]
while let key = arguments.popFirst() {
    guard key.hasPrefix("--"), let value = arguments.popFirst() else {
        print("usage: fod-places-bench [--groups N] [--places N] [--rounds N] [--batch N] [--inflight N] [--sync full|normal] [--database URL]"); exit(2)
    }
    options[String(key.dropFirst(2))] = value
}
let groupCount = options["groups"].flatMap(Int.init) ?? 1_000
let placesPerGroup = options["places"].flatMap(Int.init) ?? 100
// Timed rounds: an even number, so each side runs first as often as second (measured here: the
// side going second in a round ran 10–20% slower, whichever it was).
let rounds = max(2, (options["rounds"].flatMap(Int.init) ?? 6) + 1) / 2 * 2
let batch = max(1, options["batch"].flatMap(Int.init) ?? 100)
let inflight = max(1, options["inflight"].flatMap(Int.init) ?? 32)
let synchronous: Database.Synchronous = options["sync"] == "normal" ? .normal : .full
let postgresURL = options["database"]

/// `url` (a libpq URI) naming database `name` instead of its own.
func databaseURL(_ url: String, named name: String) -> String {
    let query = url.firstIndex(of: "?").map { String(url[$0...]) } ?? ""
    let base = url.firstIndex(of: "?").map { String(url[..<$0]) } ?? url
    guard let scheme = base.range(of: "://") else { return base + "/" + name + query }
    let server = base[scheme.upperBound...].firstIndex(of: "/").map { String(base[..<$0]) } ?? base
    return server + "/" + name + query
}

let metersPerDegree = 111_318.845
func offset(_ p: (Double, Double), east: Double, north: Double) -> (Double, Double) {
    (p.0 + east / (metersPerDegree * cos(p.1 * .pi / 180)), p.1 + north / metersPerDegree)
}

/// One group: its home, its places' geometry (GeoJSON + radius) and its phone's walk state.
struct GroupPlan {
    let home: (Double, Double)
    var places: [(geometry: JSONValue, radius: Double?)] = []
    var position: (Double, Double)
    var heading = 0.0
}

var random = SplitMix64(seed: 20261201)   // every run builds the same world
var plans: [GroupPlan] = (0..<groupCount).map { _ in
    let home = (random.uniform(-74.25, -73.70), random.uniform(40.50, 40.90))
    return GroupPlan(home: home, position: home)
}
for g in plans.indices {
    for p in 0..<placesPerGroup {
        let centre = offset(plans[g].home, east: random.uniform(-4_000, 4_000), north: random.uniform(-4_000, 4_000))
        let point: JSONValue = .array([.number(JSONNumber(centre.0)), .number(JSONNumber(centre.1))])
        if p % 5 == 4 {
            let r = random.uniform(100, 400)
            let ring: [JSONValue] = (0...6).map { i in
                let a = Double(i % 6) / 6 * 2 * .pi
                let v = offset(centre, east: r * cos(a), north: r * sin(a))
                return .array([.number(JSONNumber(v.0)), .number(JSONNumber(v.1))])
            }
            plans[g].places.append((["type": "Polygon", "coordinates": .array([.array(ring)])], nil))
        } else {
            plans[g].places.append((["type": "Point", "coordinates": point], random.uniform(50, 500)))
        }
    }
}

/// The next `count` fixes of group `g`'s phone: 5 s apart, ~8 m/s, turning slowly, drawn home.
@MainActor func walk(_ g: Int, count: Int, from start: Int64) -> [Fix] {
    var fixes: [Fix] = []
    for i in 0..<count {
        var plan = plans[g]
        plan.heading += random.uniform(-0.4, 0.4)
        let toHome = atan2(plan.home.1 - plan.position.1, plan.home.0 - plan.position.0)
        let far = hypot((plan.home.0 - plan.position.0) * metersPerDegree, (plan.home.1 - plan.position.1) * metersPerDegree) > 5_000
        if far { plan.heading = toHome }
        plan.position = offset(plan.position, east: 40 * cos(plan.heading), north: 40 * sin(plan.heading))
        plans[g] = plan
        fixes.append(Fix(longitude: plan.position.0, latitude: plan.position.1, timestamp: start + Int64(i) * 5_000,
                         accuracy: random.uniform(5, 30)))
    }
    return fixes
}

struct Side {
    let name: String
    let store: any TrackingStore
    /// The SQLite store (nil on PostgreSQL, which indexes each fix as it is stored).
    let sqlite: SQLiteBackend?
    let locations: LocationService
    var devices: [(DeviceID, Credential)] = []
    var groups: [GroupID] = []
    var owners: [UserID] = []
    /// Fixes/s per timed round: appends alone, and appends until merged into the index.
    var rates: [Double] = []
    var indexedRates: [Double] = []
}

@MainActor func makeSide(_ name: String, withPlaces: Bool) async throws -> Side {
    let backend: any TrackingStore
    var sqlite: SQLiteBackend?
    if let postgresURL {
        let database = "fod_places_bench_\(name)_\(getpid())"
        try Connection(postgresURL).execute("CREATE DATABASE \(database)")
        backend = try PostgresStore.open(databaseURL(postgresURL, named: database))
    } else {
        let directory = NSTemporaryDirectory() + "fod-places-bench-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        // The bench merges each round itself, right after its appends (the server would wait for a
        // lull first; that wait is not work and would pad both sides' times).
        let opened = try SQLiteBackend.open(directory: directory, synchronous: synchronous, merging: MergePolicy(automatic: false))
        sqlite = opened
        backend = opened
    }
    var policy = AccountService.Policy()
    policy.passwordCost = .minimal
    policy.signUpsPerAddressPerHour = 1_000_000
    policy.hashingQueue = 100_000
    policy.signUp = .open
    let accounts = try AccountService(store: backend, directory: backend, policy: policy, hashing: PasswordWork(policy: policy))
    let devices = DeviceService(store: backend)
    let groups = GroupService(store: backend)
    var limits = PlaceLimits()
    limits.placesPerGroup = max(placesPerGroup, 1)
    let places = PlaceService(store: backend, limits: limits)
    var side = Side(name: name, store: backend, sqlite: sqlite, locations: LocationService(store: backend, directory: backend, requestLimit: .none))
    // Concurrent setup: the writer group-commits, so 100,000 places take seconds, not an fsync each.
    let members = try await withThrowingTaskGroup(of: (Int, UserID, DeviceID, GroupID).self) { tasks in
        for g in 0..<groupCount {
            tasks.addTask {
                let user = try await accounts.signUp(email: "u\(g)@example.org", password: "password-\(g)", displayName: "U\(g)").user
                let (device, _) = try await devices.add(ownerID: user.id, name: "phone \(g)", platformID: nil)
                let group = try await groups.create(userID: user.id, name: "G\(g)", deviceID: device.id)
                return (g, user.id, device.id, group.record.id)
            }
        }
        var all: [(Int, UserID, DeviceID, GroupID)] = []
        for try await member in tasks { all.append(member) }
        return all.sorted { $0.0 < $1.0 }
    }
    for (_, user, device, group) in members {
        side.devices.append((device, .device(deviceID: device, ownerID: user)))
        side.groups.append(group)
        side.owners.append(user)
    }
    if withPlaces {
        let plansNow = plans
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            var pending = 0
            for (g, (_, user, _, group)) in members.enumerated() {
                for (i, place) in plansNow[g].places.enumerated() {
                    if pending >= 512 { _ = try await tasks.next(); pending -= 1 }
                    pending += 1
                    tasks.addTask {
                        _ = try await places.create(groupID: group, by: user, name: "P\(i)", geometry: place.geometry,
                                                    radius: place.radius.map { .number(JSONNumber($0)) })
                    }
                }
            }
            try await tasks.waitForAll()
        }
    }
    return side
}

/// Appends one batch per device (the same batches to every side), `inflight` at a time, then
/// merges them all into the side's cell index. Returns fixes/s of the appends alone and of
/// appends plus merge (the whole cost of storing and indexing them). Merging before the other
/// side runs also keeps one side's merge from running while the other is timed.
@MainActor func ingest(_ side: Side, batches: [[Fix]]) async throws -> (appends: Double, indexed: Double) {
    let started = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        var next = 0
        func launch() {
            let index = next
            next += 1
            let (device, credential) = side.devices[index]
            tasks.addTask { _ = try await side.locations.ingest(batches[index], deviceID: device, credential: credential, countsAsRequest: false) }
        }
        while next < min(inflight, batches.count) { launch() }
        while try await tasks.next() != nil { if next < batches.count { launch() } }
    }
    let appended = DispatchTime.now().uptimeNanoseconds
    try await side.sqlite?.drainIndex()
    let merged = DispatchTime.now().uptimeNanoseconds
    let fixes = Double(batches.count * batch)
    return (fixes / (Double(appended - started) / 1e9), fixes / (Double(merged - started) / 1e9))
}

print("building: \(groupCount) groups × \(placesPerGroup) places, batches of \(batch), \(inflight) in flight, "
      + (postgresURL == nil ? "SQLite, synchronous=\(synchronous)" : "PostgreSQL (synchronous_commit as the server has it)"))
let setupStart = Date()
var with = try await makeSide("with", withPlaces: true)
var without = try await makeSide("without", withPlaces: false)
print(String(format: "setup %.1f s", Date().timeIntervalSince(setupStart)))

// From now on: the fixes must fall in the members' sharing periods (which start when they join).
let start = Int64(Date().timeIntervalSince1970 * 1000) + 1_000
var sample: [(group: Int, fix: Fix)] = []
// Round 0 is the first append of every phone in its group (baselines set), timed apart.
for round in 0...rounds {
    let batches = (0..<groupCount).map { walk($0, count: batch, from: start + Int64(round * batch) * 5_000) }
    if round == rounds { for g in 0..<groupCount { for fix in batches[g] { sample.append((g, fix)) } } }
    let order = round % 2 == 0 ? [0, 1] : [1, 0]
    var rate = (with: (appends: 0.0, indexed: 0.0), without: (appends: 0.0, indexed: 0.0))
    for side in order {
        if side == 0 { rate.with = try await ingest(with, batches: batches) } else { rate.without = try await ingest(without, batches: batches) }
    }
    if round == 0 {
        print(String(format: "first appends (every place's baseline set for each phone): with places %.0f fixes/s, without %.0f fixes/s (not in the totals)",
                     rate.with.appends, rate.without.appends))
        continue
    }
    with.rates.append(rate.with.appends)
    without.rates.append(rate.without.appends)
    with.indexedRates.append(rate.with.indexed)
    without.indexedRates.append(rate.without.indexed)
    print(String(format: "round %d: appends with places %.0f fixes/s, without %.0f (ratio %.3f); until indexed %.0f vs %.0f (ratio %.3f)", round,
                 rate.with.appends, rate.without.appends, rate.with.appends / rate.without.appends,
                 rate.with.indexed, rate.without.indexed, rate.with.indexed / rate.without.indexed))
}
var placeEvents = 0
for groupID in with.groups {
    placeEvents += try with.store.events(groupID: groupID, after: .start, limit: 100_000).filter { $0.kind == .place }.count
}
/// Fixes/s over all rounds (each round stores the same number of fixes): rounds ÷ Σ 1/rate.
func overall(_ rates: [Double]) -> Double { Double(rates.count) / rates.reduce(0) { $0 + 1 / $1 } }
for (label, withRates, withoutRates) in [("appends", with.rates, without.rates), ("until indexed", with.indexedRates, without.indexedRates)] {
    print(String(format: "ingest, %@: with places %.0f fixes/s, without %.0f fixes/s (all %d rounds): ratio %.3f",
                 label, overall(withRates), overall(withoutRates), rounds, overall(withRates) / overall(withoutRates)))
}
print("place events logged: \(placeEvents)")

// 2. Evaluation cost per fix on the last round's fixes (SQLite: its lookup is that store's diagnostic).
if let sqliteWith = with.sqlite {
    let shapes: [[PlaceShape]] = try plans.map { plan in
        try plan.places.map { PlaceShape(region: try PlaceRegion.parse(geometry: $0.geometry, radius: $0.radius.map { .number(JSONNumber($0)) })) }
    }
    var byGroup: [Int: [Fix]] = [:]
    for (g, fix) in sample { byGroup[g, default: []].append(fix) }
    let placeService = PlaceService(store: sqliteWith)
    var indexedNanos: UInt64 = 0, bruteNanos: UInt64 = 0, candidatesSeen = 0, agree = 0, total = 0
    for (g, fixes) in byGroup.sorted(by: { $0.key < $1.key }) {
        // Place id → its shape (places are named P0, P1, … in plan order).
        let ids = try placeService.places(groupID: with.groups[g], for: with.owners[g])
        var shapeOf: [PlaceID: PlaceShape] = [:]
        for entry in ids { if let i = Int(entry.place.name.dropFirst()) { shapeOf[entry.place.id] = shapes[g][i] } }
        let positions = fixes.map { PlaceArrivals.Position(longitude: $0.longitude, latitude: $0.latitude, accuracyMeters: $0.accuracy, timestamp: $0.timestamp) }
        var t0 = DispatchTime.now().uptimeNanoseconds
        // As ingest: one candidate lookup per run of nearby fixes of the append (this group's batch;
        // PlaceArrivalRun.runCellLevel), the rule per fix on its run's candidates.
        var insideIndexed = 0
        for run in PlaceArrivalRun.runs(of: positions) {
            let candidates = try sqliteWith.placeCandidates(groupID: with.groups[g], points: fixes[run].map { ($0.longitude, $0.latitude) })
            for position in positions[run] {
                for id in candidates {
                    guard let shape = shapeOf[id] else { continue }
                    if PlaceTransition.evaluate(region: shape.region, remembered: .outside, point: position.point, accuracyMeters: position.accuracyMeters).crossing != nil {
                        insideIndexed += 1
                    }
                }
            }
            candidatesSeen += candidates.count
        }
        indexedNanos += DispatchTime.now().uptimeNanoseconds - t0
        t0 = DispatchTime.now().uptimeNanoseconds
        var insideBrute = 0
        for position in positions {
            for shape in shapes[g] where PlaceTransition.evaluate(region: shape.region, remembered: .outside, point: position.point,
                                                                  accuracyMeters: position.accuracyMeters).crossing != nil {
                insideBrute += 1
            }
        }
        bruteNanos += DispatchTime.now().uptimeNanoseconds - t0
        total += positions.count
        if insideBrute == insideIndexed { agree += 1 }
    }
    print(String(format: "evaluation per fix over %d fixes: place index (lookups of a %d-fix append, as ingest makes them + rule on its candidates) %.2f µs, %.1f candidates an append (summed over its runs); brute force over %d places %.2f µs (%.1f×); %d/%d groups agree",
                 total, batch, Double(indexedNanos) / Double(total) / 1_000, Double(candidatesSeen) / Double(max(byGroup.count, 1)), placesPerGroup,
                 Double(bruteNanos) / Double(total) / 1_000, Double(bruteNanos) / Double(max(indexedNanos, 1)), agree, byGroup.count))
}
for side in [with, without] {
    side.sqlite?.close()
    (side.store as? PostgresStore)?.close()
}
if let postgresURL {
    for side in ["with", "without"] { try Connection(postgresURL).execute("DROP DATABASE fod_places_bench_\(side)_\(getpid()) WITH (FORCE)") }
} else {
    for side in ["with", "without"] { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "fod-places-bench-\(side)-\(getpid())") }
}
