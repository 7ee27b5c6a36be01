// Raw SQLite baseline for the ingest benchmark: the same schema (Tracking.Schema migrations),
// the same row generator as the HTTP load (wrk script), inserted in one process with prepared
// statements, keys sorted within each transaction, `rows-per-transaction` rows per commit.
// Prints three rates: the acknowledgement path (what the server writes before a 2xx), the
// background merge into the cell index, and the one-table layout the server used before.
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
    let base = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
    typealias Row = (cell: Int64, device: Int64, ts: Int64, seq: Int64, lon: Double, lat: Double, id: String)
    func rowsFor(_ range: Range<Int>) -> [Row] {
        range.map { i in
            // Same spread as Benchmarks/ingest/post.lua.
            let lon = Double((i * 7919) % 360_000) / 1000 - 180
            let lat = Double((i * 104_729) % 170_000) / 1000 - 85
            let cell = CellID(LatLng(degreesLatitude: lat, longitude: lon)).int64Key
            return (cell, Int64(i % 64 + 1), base + Int64(i), Int64(i + 1), lon, lat, "b-\(i)")
        }
    }
    func report(_ name: String, _ seconds: Double, _ detail: String) {
        print(String(format: "raw %@: %d rows in %.2f s: %.0f rows/s (%@, synchronous=%@)", name, rows, seconds,
                     Double(rows) / seconds, detail, sync.rawValue))
    }

    // 1. What the server does before it answers: history rows (clustered by device and time)
    //    and one index-queue row per 100 fixes (one per request in the HTTP run: a blob of the
    //    same size as the server's), `perTransaction` rows per commit.
    let history = try db.prepare("""
        INSERT INTO locations (device_key, ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
        VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, ?)
        """)
    let queue = try db.prepare("INSERT INTO index_queue (seq, device_key, fixes) VALUES (?, ?, ?)")
    var start = Date()
    var k = 0
    while k < rows {
        let n = min(perTransaction, rows - k)
        var batch = rowsFor(k..<(k + n))
        try db.transaction {
            for request in stride(from: 0, to: batch.count, by: 100) {
                let part = batch[request..<min(request + 100, batch.count)]
                var blob: [UInt8] = []
                for r in part {
                    for v in [UInt64(bitPattern: r.ts), UInt64(bitPattern: r.cell), r.lon.bitPattern, r.lat.bitPattern] {
                        withUnsafeBytes(of: v.littleEndian) { blob.append(contentsOf: $0) }
                    }
                    blob.append(UInt8(r.id.utf8.count)); blob.append(0)
                    blob.append(contentsOf: Array(r.id.utf8))
                }
                try queue.bind(part.first!.seq, at: 1)
                try queue.bind(part.first!.device, at: 2)
                try queue.bind(blob, at: 3)
                try queue.run()
            }
            batch.sort { ($0.device, $0.ts, $0.seq) < ($1.device, $1.ts, $1.seq) }
            for r in batch {
                try history.bind([.integer(r.device), .integer(r.ts), .integer(r.seq), .integer(r.cell), .real(r.lon), .real(r.lat), .text(r.id)])
                try history.run()
            }
        }
        k += n
    }
    let ackSeconds = Date().timeIntervalSince(start)
    report("ack path (locations + index_queue)", ackSeconds, "\(perTransaction) per transaction")

    // 2. The background merge: queued fixes → cell_index + client_ids, 100,000 per commit, each
    //    sorted by its key, after checking the fix is still in history (as the server does).
    let intoIndex = try db.prepare("INSERT INTO cell_index (cell, device_key, ts, seq, lon, lat) VALUES (?, ?, ?, ?, ?, ?)")
    let intoIDs = try db.prepare("INSERT INTO client_ids (device_key, client_id, seq) VALUES (?, ?, ?)")
    let exists = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? AND seq = ?")
    start = Date()
    k = 0
    while k < rows {
        let n = min(100_000, rows - k)
        var batch = rowsFor(k..<(k + n))
        try db.transaction {
            var blobs = 0
            try db.forEachRow("SELECT fixes FROM index_queue WHERE seq BETWEEN ? AND ?", [.integer(batch.first!.seq), .integer(batch.last!.seq)]) {
                blobs += $0.blob(0).count
            }
            for r in batch {
                try exists.bind([.integer(r.device), .integer(r.ts), .integer(r.seq)])
                guard try exists.step() else { throw StorageError(code: 1, message: "missing row") }
                exists.reset()
            }
            batch.sort { ($0.cell, $0.device, $0.ts, $0.seq) < ($1.cell, $1.device, $1.ts, $1.seq) }
            for r in batch {
                try intoIndex.bind([.integer(r.cell), .integer(r.device), .integer(r.ts), .integer(r.seq), .real(r.lon), .real(r.lat)])
                try intoIndex.run()
            }
            batch.sort { ($0.device, $0.id) < ($1.device, $1.id) }
            for r in batch {
                try intoIDs.bind([.integer(r.device), .text(r.id), .integer(r.seq)])
                try intoIDs.run()
            }
            try db.run("DELETE FROM index_queue WHERE seq <= ?", [.integer(batch.map(\.seq).max() ?? 0)])
            precondition(blobs > 0)
        }
        k += n
    }
    let mergeSeconds = Date().timeIntervalSince(start)
    report("merge (cell_index + client_ids)", mergeSeconds, "100000 per transaction")
    report("ack + merge", ackSeconds + mergeSeconds, "end to end")

    // 3. For reference, the one-table layout this replaced: cell-clustered rows with a
    //    device-time index and a unique client-id index, written at acknowledgement.
    try db.execute("""
        CREATE TABLE single (cell INTEGER NOT NULL, device_key INTEGER NOT NULL, ts INTEGER NOT NULL, seq INTEGER NOT NULL,
          lon REAL NOT NULL, lat REAL NOT NULL, client_id TEXT, PRIMARY KEY (cell, device_key, ts, seq)) WITHOUT ROWID;
        CREATE INDEX single_by_device_time ON single(device_key, ts, seq);
        CREATE UNIQUE INDEX single_by_client_id ON single(device_key, client_id) WHERE client_id IS NOT NULL;
        """)
    let single = try db.prepare("INSERT INTO single (cell, device_key, ts, seq, lon, lat, client_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
    start = Date()
    k = 0
    while k < rows {
        let n = min(perTransaction, rows - k)
        let batch = rowsFor(k..<(k + n)).sorted { $0.cell < $1.cell }
        try db.transaction {
            for r in batch {
                try single.bind([.integer(r.cell), .integer(r.device), .integer(r.ts), .integer(r.seq), .real(r.lon), .real(r.lat), .text(r.id)])
                try single.run()
            }
        }
        k += n
    }
    report("one-table layout (cell key + 2 indexes)", Date().timeIntervalSince(start), "\(perTransaction) per transaction")
} catch {
    FileHandle.standardError.write(Data("baseline failed: \(error)\n".utf8))
    exit(1)
}
