// Raw SQLite baseline for the ingest benchmark: the same schema (Tracking.Schema migrations),
// the same row generator as the HTTP load (wrk script), inserted in one process with prepared
// statements, keys sorted within each transaction, `rows-per-transaction` rows per commit.
// Usage: fod-ingest-baseline <db-path> <rows> <rows-per-transaction> <full|normal>
import Foundation
import GeoKit
import Storage
import Tracking

let args = CommandLine.arguments
guard args.count == 5, let rows = Int(args[2]), let perTransaction = Int(args[3]),
      let sync = Database.Synchronous(rawValue: args[4].uppercased()) else {
    FileHandle.standardError.write(Data("usage: fod-ingest-baseline <db> <rows> <rows-per-transaction> <full|normal>\n".utf8))
    exit(2)
}
do {
    let db = try Database(path: args[1], synchronous: sync)
    if let cache = ProcessInfo.processInfo.environment["FOD_CACHE_KIB"] { try db.execute("PRAGMA cache_size = -\(cache)") }
    try Schema.migrator.migrate(db)
    try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES ('u', 'u@x', 'u', '!', 0)")
    for d in 0..<64 {
        try db.run("INSERT INTO devices (id, owner_id, name, token_hash, created_at) VALUES (?, 'u', 'd', ?, 0)", [.text("d\(d)"), .text("h\(d)")])
    }
    let insert = try db.prepare("""
        INSERT INTO fixes (cell, device_key, ts, seq, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
        VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, ?)
        """)
    let base = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
    let start = Date()
    var k = 0
    while k < rows {
        let n = min(perTransaction, rows - k)
        var batch: [(cell: Int64, device: Int64, ts: Int64, seq: Int64, lon: Double, lat: Double, id: String)] = []
        batch.reserveCapacity(n)
        for i in k..<(k + n) {
            // Same spread as Benchmarks/ingest/post.lua.
            let lon = Double((i * 7919) % 360_000) / 1000 - 180
            let lat = Double((i * 104_729) % 170_000) / 1000 - 85
            let cell = CellID(LatLng(degreesLatitude: lat, longitude: lon)).int64Key
            batch.append((cell, Int64(i % 64 + 1), base + Int64(i), Int64(i + 1), lon, lat, "b-\(i)"))
        }
        batch.sort { $0.cell < $1.cell }
        try db.transaction {
            for r in batch {
                try insert.bind([.integer(r.cell), .integer(r.device), .integer(r.ts), .integer(r.seq), .real(r.lon), .real(r.lat), .text(r.id)])
                try insert.run()
            }
        }
        k += n
    }
    let seconds = Date().timeIntervalSince(start)
    print(String(format: "raw %d rows in %.2f s: %.0f rows/s (%d per transaction, synchronous=%@)", rows, seconds, Double(rows) / seconds, perTransaction, sync.rawValue))
} catch {
    FileHandle.standardError.write(Data("baseline failed: \(error)\n".utf8))
    exit(1)
}
