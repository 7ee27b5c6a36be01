// Raw SQLite baseline for the ingest benchmark: the same schema (Tracking.Schema migrations),
// the same row generator as the HTTP load (wrk script), written in one process with prepared
// statements and typed binds, keys sorted as the server sorts them. Rows are generated before
// any clock starts, so only SQLite work (and sorting) is timed. Prints four rates:
//  - the acknowledgement path (what the server writes before a 2xx): history rows plus one
//    index-queue row per 100 fixes, `rows-per-transaction` rows per commit;
//  - the background merge as the server runs it (cycles of 400,000, commits of 16,384);
//  - both together;
//  - the one-table layout the server used before (cell key + device-time and client-id
//    indexes written at acknowledgement), `rows-per-transaction` rows per commit.
// Usage: fod-ingest-baseline <db-path> <rows> <rows-per-transaction> <full|normal>
import Foundation
import GeoKit
import Storage
import SQLiteStore
import Tracking

/// One generated fix.
struct Row {
    let cell: Int64, device: Int64, timestamp: Int64, sequence: Int64
    let longitude: Double, latitude: Double
    let clientID: String
}

struct RawIngest {
    let db: Database
    let rows: [Row]
    let perTransaction: Int

    /// Same spread as Benchmarks/ingest/post.lua; 64 devices round-robin.
    static func generate(_ count: Int, base: Int64) -> [Row] {
        (0..<count).map { i in
            let lon = Double((i * 7919) % 360_000) / 1000 - 180
            let lat = Double((i * 104_729) % 170_000) / 1000 - 85
            return Row(cell: CellID(LatLng(degreesLatitude: lat, longitude: lon)).int64Key, device: Int64(i % 64 + 1),
                       timestamp: base + Int64(i), sequence: Int64(i + 1), longitude: lon, latitude: lat, clientID: "b-\(i)")
        }
    }

    /// The server's queue blob layout (IndexQueueRecord): ts, cell, lon, lat, u16 id length, id.
    static func queueBlob(_ rows: ArraySlice<Row>) -> [UInt8] {
        var blob: [UInt8] = []
        blob.reserveCapacity(rows.count * 48)
        for r in rows {
            for v in [UInt64(bitPattern: r.timestamp), UInt64(bitPattern: r.cell), r.longitude.bitPattern, r.latitude.bitPattern] {
                withUnsafeBytes(of: v.littleEndian) { blob.append(contentsOf: $0) }
            }
            withUnsafeBytes(of: UInt16(r.clientID.utf8.count).littleEndian) { blob.append(contentsOf: $0) }
            blob.append(contentsOf: r.clientID.utf8)
        }
        return blob
    }

    func acknowledgementPath() throws {
        let history = try db.prepare("""
            INSERT INTO locations (device_key, ts, seq, cell, lon, lat, accuracy, altitude, speed, heading, battery, client_id)
            VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, ?)
            """)
        let queue = try db.prepare("INSERT INTO index_queue (seq, device_key, fixes) VALUES (?, ?, ?)")
        for start in stride(from: 0, to: rows.count, by: perTransaction) {
            let slice = rows[start..<min(start + perTransaction, rows.count)]
            try db.transaction {
                for request in stride(from: slice.startIndex, to: slice.endIndex, by: 100) {
                    let part = slice[request..<min(request + 100, slice.endIndex)]
                    try queue.bind(part.first!.sequence, at: 1)
                    try queue.bind(part.first!.device, at: 2)
                    try queue.bind(Self.queueBlob(part), at: 3)
                    try queue.run()
                }
                for r in slice.sorted(by: { ($0.device, $0.timestamp, $0.sequence) < ($1.device, $1.timestamp, $1.sequence) }) {
                    try history.bind(r.device, at: 1)
                    try history.bind(r.timestamp, at: 2)
                    try history.bind(r.sequence, at: 3)
                    try history.bind(r.cell, at: 4)
                    try history.bind(r.longitude, at: 5)
                    try history.bind(r.latitude, at: 6)
                    try history.bind(r.clientID, at: 7)
                    try history.run()
                }
            }
        }
    }

    func merge() throws {
        let intoIndex = try db.prepare("INSERT INTO cell_index (cell, device_key, ts, seq, lon, lat) VALUES (?, ?, ?, ?, ?, ?)")
        let intoIDs = try db.prepare("INSERT INTO client_ids (device_key, client_id, seq) VALUES (?, ?, ?)")
        let exists = try db.prepare("SELECT 1 FROM locations WHERE device_key = ? AND ts = ? AND seq = ?")
        for start in stride(from: 0, to: rows.count, by: 400_000) {
            let cycle = rows[start..<min(start + 400_000, rows.count)]
            var queued = 0
            try db.forEachRow("SELECT fixes FROM index_queue WHERE seq BETWEEN ? AND ?",
                              [.integer(cycle.first!.sequence), .integer(cycle.last!.sequence)]) { queued += $0.blob(0).count }
            precondition(queued > 0, "the queue holds the cycle's fixes")
            for r in cycle {
                try exists.bind(r.device, at: 1)
                try exists.bind(r.timestamp, at: 2)
                try exists.bind(r.sequence, at: 3)
                let stored = try exists.step()
                exists.reset()
                precondition(stored, "every queued fix is in history")
            }
            let byCell = cycle.sorted { ($0.cell, $0.device, $0.timestamp, $0.sequence) < ($1.cell, $1.device, $1.timestamp, $1.sequence) }
            for chunk in stride(from: 0, to: byCell.count, by: 16_384) {
                try db.transaction {
                    for r in byCell[chunk..<min(chunk + 16_384, byCell.count)] {
                        try intoIndex.bind(r.cell, at: 1)
                        try intoIndex.bind(r.device, at: 2)
                        try intoIndex.bind(r.timestamp, at: 3)
                        try intoIndex.bind(r.sequence, at: 4)
                        try intoIndex.bind(r.longitude, at: 5)
                        try intoIndex.bind(r.latitude, at: 6)
                        try intoIndex.run()
                    }
                }
            }
            let byID = cycle.sorted { ($0.device, $0.clientID) < ($1.device, $1.clientID) }
            for chunk in stride(from: 0, to: byID.count, by: 16_384) {
                try db.transaction {
                    for r in byID[chunk..<min(chunk + 16_384, byID.count)] {
                        try intoIDs.bind(r.device, at: 1)
                        try intoIDs.bind(r.clientID, at: 2)
                        try intoIDs.bind(r.sequence, at: 3)
                        try intoIDs.run()
                    }
                }
            }
            try db.run("DELETE FROM index_queue WHERE seq <= ?", [.integer(cycle.last!.sequence)])
        }
    }

    func oneTableLayout() throws {
        try db.execute("""
            CREATE TABLE single (cell INTEGER NOT NULL, device_key INTEGER NOT NULL, ts INTEGER NOT NULL, seq INTEGER NOT NULL,
              lon REAL NOT NULL, lat REAL NOT NULL, client_id TEXT, PRIMARY KEY (cell, device_key, ts, seq)) WITHOUT ROWID;
            CREATE INDEX single_by_device_time ON single(device_key, ts, seq);
            CREATE UNIQUE INDEX single_by_client_id ON single(device_key, client_id) WHERE client_id IS NOT NULL;
            """)
        let insert = try db.prepare("INSERT INTO single (cell, device_key, ts, seq, lon, lat, client_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for start in stride(from: 0, to: rows.count, by: perTransaction) {
            let batch = rows[start..<min(start + perTransaction, rows.count)].sorted { $0.cell < $1.cell }
            try db.transaction {
                for r in batch {
                    try insert.bind(r.cell, at: 1)
                    try insert.bind(r.device, at: 2)
                    try insert.bind(r.timestamp, at: 3)
                    try insert.bind(r.sequence, at: 4)
                    try insert.bind(r.longitude, at: 5)
                    try insert.bind(r.latitude, at: 6)
                    try insert.bind(r.clientID, at: 7)
                    try insert.run()
                }
            }
        }
    }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = Date()
    try body()
    return Date().timeIntervalSince(start)
}

let args = CommandLine.arguments
guard args.count == 5, let count = Int(args[2]), let perTransaction = Int(args[3]),
      let sync = Database.Synchronous(rawValue: args[4].uppercased()) else {
    FileHandle.standardError.write(Data("usage: fod-ingest-baseline <db> <rows> <rows-per-transaction> <full|normal>\n".utf8))
    exit(2)
}
do {
    let db = try Database(path: args[1], synchronous: sync)
    // The server's writer page cache.
    try db.execute("PRAGMA cache_size = -\(SQLiteBackend.writerCacheKiB)")
    try Schema.migrator.migrate(db)
    try db.run("INSERT INTO users (id, email, display_name, password_hash, created_at) VALUES ('u', 'u@x', 'u', '!', 0)")
    for d in 0..<64 {
        try db.run("INSERT INTO devices (id, owner_id, name, token_hash, created_at) VALUES (?, 'u', 'd', ?, 0)", [.text("d\(d)"), .text("h\(d)")])
    }
    let raw = RawIngest(db: db, rows: RawIngest.generate(count, base: Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000),
                        perTransaction: perTransaction)
    func report(_ name: String, _ seconds: Double, _ detail: String) {
        print(String(format: "raw %@: %d rows in %.2f s: %.0f rows/s (%@, synchronous=%@)", name, count, seconds,
                     Double(count) / seconds, detail, sync.rawValue))
    }
    let ack = try seconds { try raw.acknowledgementPath() }
    report("ack path (locations + index_queue)", ack, "\(perTransaction) per transaction")
    let merge = try seconds { try raw.merge() }
    report("merge (cell_index + client_ids)", merge, "400000 per cycle, 16384 per transaction")
    report("ack + merge", ack + merge, "end to end")
    report("one-table layout (cell key + 2 indexes)", try seconds { try raw.oneTableLayout() }, "\(perTransaction) per transaction")
} catch {
    FileHandle.standardError.write(Data("baseline failed: \(error)\n".utf8))
    exit(1)
}
