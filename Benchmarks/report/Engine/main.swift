// Engine-only geo queries for the comparison report (Benchmarks/report/run.py): the same JSON
// bodies the report POSTs over HTTP, answered by GeoQueryService straight on the server's
// stopped data directory (no HTTP, no authentication, the group's sharing devices loaded once), so the
// difference to the HTTP figures is what the request path costs.
// Usage: fod-engine-bench <data dir | postgresql:// URL> <group id> <bodies file> <latencies out> <ids out> <t0 ms> <timed passes>
//   (a postgresql:// URL: the same on the PostgreSQL store, Benchmarks/postgres/geo.py)
//   latencies: one line per timed query "latency_us hits 0"; ids: one line per query (first,
//   untimed pass) of the fix ids found (timestamp − t0), in answer order.
import Foundation
import GeoQuery
import JSONCore
import PostgresStore
import SQLiteStore
import Tracking

func runEngine() throws {
    let argv = CommandLine.arguments
    guard argv.count == 8, let t0 = Int64(argv[6]), let passes = Int(argv[7]) else {
        print("usage: fod-engine-bench <data dir> <group id> <bodies> <latencies out> <ids out> <t0 ms> <timed passes>")
        exit(2)
    }
    let backend: any TrackingStore = argv[1].hasPrefix("postgresql://")
        ? try PostgresStore.open(argv[1], readerCount: 1)
        : try SQLiteBackend.open(directory: argv[1], synchronous: .normal)
    defer { backend.close() }
    let service = GeoQueryService(index: backend, directory: backend)
    // The group's sharing devices as the server caches them (once per visibility version).
    let sharing = SharingDevices(try backend.sharedDevices(groupID: GroupID(argv[2])))
    let lines = String(decoding: FileManager.default.contents(atPath: argv[3]) ?? Data(), as: UTF8.self).split(whereSeparator: \.isNewline)
    let queries: [(GeoFilter, Int)] = try lines.map { line in
        let body = try JSONParser.parse(Array(line.utf8))
        guard let location = body["filter"]?["location"] else { throw TrackingError.missingField("filter") }
        return (try GeoFilter.parse(location), Int(body["limit"]?.int64Value ?? 100))
    }
    var latencies = "", ids = ""
    for pass in 0...passes {
        for (filter, limit) in queries {
            var explain = QueryExplain()
            let started = DispatchTime.now().uptimeNanoseconds
            let results = try service.queryHistory(filter, sharing: sharing, caller: nil, limit: limit, &explain)
            let micros = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000
            if pass == 0 {
                ids += results.map { String($0.timestamp - t0) }.joined(separator: " ") + "\n"
            } else {
                latencies += String(format: "%.1f %d 0\n", micros, results.count)
            }
        }
    }
    try latencies.write(toFile: argv[4], atomically: false, encoding: .utf8)
    try ids.write(toFile: argv[5], atomically: false, encoding: .utf8)
}

do { try runEngine() } catch { print("fod-engine-bench: \(error)"); exit(1) }
