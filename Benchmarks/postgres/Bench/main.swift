// fod-postgres-bench: rows/s of the ways PostgresClient can write fixes durably, side by side
// in one run on one server: binary COPY, pipelined multi-row INSERT, multi-row INSERT without a
// pipeline, INSERT … SELECT from unnest() of array parameters, pipelined single-row INSERT;
// each into a plain table, into one with the indexes a store needs (a unique key for
// duplicates, the cell B-tree), and into a copy of the PostgreSQL store's own `fixes` table.
//
//   fod-postgres-bench --url postgresql://… [--rows 1000000] [--batch 10000]
//                      [--rows-per-statement 1000] [--single-row-rows 100000] [--rounds 3]
//                      [--layout plain|indexed|store]   (default: all three)
//
// Rows are (cell bigint, device bigint, ts bigint, seq bigint, lon float8, lat float8). Every
// batch of --batch rows is one transaction (one commit, synchronous_commit on), like a
// server's group commit; "copy, one transaction" loads all rows in a single COPY as the ceiling.
// Prints the median rows/s of --rounds runs (and the range).
import Foundation
import PostgresClient

struct Options {
    var url = ""
    var rows = 1_000_000
    var batch = 10_000
    var rowsPerStatement = 1_000
    var singleRowRows = 100_000
    var rounds = 3
    var layouts = Layout.allCases

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { throw UsageError("\(flag) needs a value") }
            func number() throws -> Int {
                guard let n = Int(value), n > 0 else { throw UsageError("\(flag) needs a positive number, not \(value)") }
                return n
            }
            switch flag {
            case "--url": url = value
            case "--rows": rows = try number()
            case "--batch": batch = try number()
            case "--rows-per-statement": rowsPerStatement = try number()
            case "--single-row-rows": singleRowRows = try number()
            case "--rounds": rounds = try number()
            case "--layout":
                guard let layout = Layout.named[value] else { throw UsageError("--layout is plain, indexed or store, not \(value)") }
                layouts = [layout]
            default: throw UsageError("unknown option \(flag)")
            }
        }
        if url.isEmpty { throw UsageError("--url postgresql://… is required") }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The rows, generated once (deterministic): 1,000 devices, each with its own sequence.
struct Fixes {
    let cell: [Int64], device: [Int64], ts: [Int64], seq: [Int64], lon: [Double], lat: [Double]

    init(count: Int) {
        var cell: [Int64] = [], device: [Int64] = [], ts: [Int64] = [], seq: [Int64] = [], lon: [Double] = [], lat: [Double] = []
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        func next() -> UInt64 {  // splitmix64
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        for i in 0..<count {
            cell.append(Int64(bitPattern: next() >> 1))
            device.append(Int64(i % 1_000))
            seq.append(Int64(i / 1_000))
            ts.append(1_790_000_000_000 + Int64(i) * 10)
            lon.append(Double(next() >> 11) / Double(1 << 53) * 360 - 180)
            lat.append(Double(next() >> 11) / Double(1 << 53) * 180 - 90)
        }
        (self.cell, self.device, self.ts, self.seq, self.lon, self.lat) = (cell, device, ts, seq, lon, lat)
    }

    var count: Int { cell.count }

    func values(_ range: Range<Int>) -> [PostgresValue] {
        var values: [PostgresValue] = []
        values.reserveCapacity(range.count * 6)
        for i in range {
            values += [.int64(cell[i]), .int64(device[i]), .int64(ts[i]), .int64(seq[i]), .double(lon[i]), .double(lat[i])]
        }
        return values
    }
}

let columns = ["cell", "device", "ts", "seq", "lon", "lat"]
/// The store's further columns (`Layout.store`).
let storeColumns = ["accuracy", "altitude", "speed", "heading", "battery", "client_id"]

enum Layout: String, CaseIterable {
    case plain = "no index"
    case indexed = "unique (device, seq) + cell index"
    /// The PostgreSQL store's `fixes` (PostgresSchema): its columns, its four indexes, and a
    /// client id on every row (COPY writes one; the other methods leave it NULL).
    case store = "the store's fixes table: its columns and indexes, client ids"

    static let named: [String: Layout] = ["plain": .plain, "indexed": .indexed, "store": .store]

    func create(_ table: String) -> String {
        var sql = "DROP TABLE IF EXISTS \(table); CREATE TABLE \(table) (cell bigint NOT NULL, device bigint NOT NULL, "
            + "ts bigint NOT NULL, seq bigint NOT NULL, lon float8 NOT NULL, lat float8 NOT NULL"
        switch self {
        case .plain: sql += ")"
        case .indexed: sql += ", PRIMARY KEY (device, seq)); CREATE INDEX ON \(table) (cell)"
        case .store:
            sql += ", accuracy float8, altitude float8, speed float8, heading float8, battery float8, client_id text, "
                + "PRIMARY KEY (device, ts, seq)); CREATE INDEX ON \(table) (cell, device, ts, seq) INCLUDE (lon, lat); "
                + "CREATE UNIQUE INDEX ON \(table) (device, client_id) WHERE client_id IS NOT NULL; "
                + "CREATE UNIQUE INDEX ON \(table) (device, ts) WHERE client_id IS NULL"
        }
        return sql
    }
}

enum Method: String, CaseIterable {
    case copyBatches = "COPY binary, one per batch"
    case pipelinedInsert = "pipelined multi-row INSERT"
    case insert = "multi-row INSERT, no pipeline"
    case unnestInsert = "INSERT … SELECT unnest(arrays)"
    case pipelinedSingleRow = "pipelined single-row INSERT"
    case copyOnce = "COPY binary, one transaction"

    /// Loads `fixes[0..<rows]` into `table`.
    func load(_ fixes: Fixes, rows: Int, into table: String, layout: Layout, on connection: Connection, options: Options) throws {
        let insert = MultiRowInsert(table: table, columns: columns)
        var start = 0
        if self == .copyOnce {
            try copy(fixes, 0..<rows, into: table, layout: layout, on: connection)
            return
        }
        while start < rows {
            let range = start..<min(start + options.batch, rows)
            switch self {
            case .copyBatches:
                try copy(fixes, range, into: table, layout: layout, on: connection)
            case .pipelinedInsert:
                try connection.pipeline { pipeline in
                    try pipeline.append(insert, values: fixes.values(range), rowsPerStatement: options.rowsPerStatement)
                }
            case .insert:
                try connection.transaction { c in
                    try c.insert(insert, values: fixes.values(range), rowsPerStatement: options.rowsPerStatement)
                }
            case .unnestInsert:
                try connection.queryPrepared(
                    "INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT * FROM "
                        + "unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[])",
                    [.int64Array(Array(fixes.cell[range])), .int64Array(Array(fixes.device[range])), .int64Array(Array(fixes.ts[range])),
                     .int64Array(Array(fixes.seq[range])), .doubleArray(Array(fixes.lon[range])), .doubleArray(Array(fixes.lat[range]))])
            case .pipelinedSingleRow:
                let sql = insert.sql(rows: 1)
                try connection.pipeline { pipeline in
                    for i in range { try pipeline.append(sql, fixes.values(i..<(i + 1))) }
                }
            case .copyOnce:
                break
            }
            start = range.upperBound
        }
    }

    private func copy(_ fixes: Fixes, _ range: Range<Int>, into table: String, layout: Layout, on connection: Connection) throws {
        let withStoreColumns = layout == .store
        try connection.copyIn(table: table, columns: withStoreColumns ? columns + storeColumns : columns) { writer in
            for i in range {
                try writer.startRow()
                try writer.write(fixes.cell[i]); try writer.write(fixes.device[i]); try writer.write(fixes.ts[i])
                try writer.write(fixes.seq[i]); try writer.write(fixes.lon[i]); try writer.write(fixes.lat[i])
                if withStoreColumns {
                    for _ in 0..<5 { try writer.writeNull() }  // accuracy … battery, as the ingest benchmark sends none
                    try writer.write("\(fixes.device[i])-\(fixes.seq[i])")
                }
            }
        }
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func thousands(_ value: Double) -> String {
    value >= 10_000 ? "\(Int((value / 1_000).rounded()))k" : "\(Int(value.rounded()))"
}

func run() throws {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let connection = try Connection(options.url)
    try connection.execute("SET synchronous_commit = on")
    let settings = try ["fsync", "synchronous_commit", "wal_level", "shared_buffers", "server_version"].map { name in
        "\(name)=\(try connection.query("SELECT current_setting($1)", [.text(name)]).row(0).text(0))"
    }
    print("server: \(settings.joined(separator: " "))")
    print("rows: \(options.rows) (single-row INSERT: \(options.singleRowRows)), batch \(options.batch) rows a transaction, "
          + "\(options.rowsPerStatement) rows a multi-row statement, \(options.rounds) rounds, median (min–max) rows/s")
    let fixes = Fixes(count: max(options.rows, options.singleRowRows))
    let clock = ContinuousClock()
    let table = "bench_fixes"
    for layout in options.layouts {
        print("\n\(layout.rawValue):")
        for method in Method.allCases {
            let rows = method == .pipelinedSingleRow ? min(options.singleRowRows, options.rows) : options.rows
            var rates: [Double] = []
            for _ in 0..<options.rounds {
                try connection.execute(layout.create(table))
                try connection.execute("CHECKPOINT")
                let elapsed = try clock.measure {
                    try method.load(fixes, rows: rows, into: table, layout: layout, on: connection, options: options)
                }
                let stored = try connection.query("SELECT count(*) FROM \(table)").row(0).int64(0)
                guard stored == Int64(rows) else { throw UsageError("\(method.rawValue) stored \(stored) of \(rows) rows") }
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                rates.append(Double(rows) / seconds)
            }
            let name = method.rawValue.padding(toLength: 32, withPad: " ", startingAt: 0)
            print("  \(name) \(thousands(median(rates))) rows/s (\(thousands(rates.min() ?? 0))–\(thousands(rates.max() ?? 0))), \(rows) rows")
        }
    }
    try connection.execute("DROP TABLE IF EXISTS \(table)")
}

do {
    try run()
} catch {
    print("fod-postgres-bench: \(error)")
    exit(1)
}
