import PostgresClient
import Testing

@Suite("PostgreSQL pipeline mode, multi-row INSERT and COPY", TestDatabase.available)
struct BulkWriteTests {
    private func count(_ connection: Connection, _ table: String) throws -> Int64 {
        try connection.query("SELECT count(*) FROM \(table)").row(0).int64(0)
    }

    @Test func aThousandInsertsInOneSync() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("pipe")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY, name text)")
        let results = try connection.pipeline { pipeline in
            for id in 0..<1_000 {
                try pipeline.append("INSERT INTO \(table) VALUES ($1, $2)", [.int64(Int64(id)), .text("n\(id)")])
            }
            try pipeline.append("SELECT count(*), sum(id) FROM \(table)")
        }
        #expect(results.count == 1_001)
        #expect(results.prefix(1_000).allSatisfy { $0.affectedRows == 1 })
        // Statements run in order: the SELECT saw all thousand rows.
        #expect(try results[1_000].row(0).int64(0) == 1_000)
        #expect(try results[1_000].row(0).int64(1) == 499_500)
        #expect(connection.preparedStatementCount == 2)
        #expect(connection.transactionStatus == .idle)
    }

    @Test func aFailingStatementUndoesTheWholeBatch() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("pipefail")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY)")
        let error = expectError(.uniqueViolation) {
            try connection.pipeline { pipeline in
                for id in 0..<1_000 {
                    try pipeline.append("INSERT INTO \(table) VALUES ($1)", [.int64(id == 700 ? 3 : Int64(id))])
                }
            }
        }
        #expect(error?.statementIndex == 700)
        #expect(try count(connection, table) == 0)
        // The session is in step afterwards, and a bad statement in a pipeline is reported too.
        let syntax = expectError(.syntaxError) {
            try connection.pipeline { pipeline in
                try pipeline.append("INSERT INTO \(table) VALUES ($1)", [1])
                try pipeline.append("INSER nothing")
                try pipeline.append("INSERT INTO \(table) VALUES ($1)", [2])
            }
        }
        #expect(syntax?.statementIndex == 1)
        #expect(try count(connection, table) == 0)
        let results = try connection.pipeline { pipeline in try pipeline.append("INSERT INTO \(table) VALUES ($1)", [1]) }
        #expect(results.count == 1)
        #expect(try count(connection, table) == 1)
    }

    @Test func multiRowInsertSplitsIntoStatements() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("multi")
        try connection.execute("CREATE TABLE \(table) (device bigint, seq bigint, lon float8, PRIMARY KEY (device, seq))")
        let insert = MultiRowInsert(table: table, columns: ["device", "seq", "lon"], suffix: "ON CONFLICT DO NOTHING")
        #expect(insert.sql(rows: 2) == "INSERT INTO \"\(table)\" (\"device\", \"seq\", \"lon\") VALUES ($1, $2, $3), ($4, $5, $6) ON CONFLICT DO NOTHING")
        #expect(insert.maximumRowsPerStatement == 21_845)
        var values: [PostgresValue] = []
        for seq in 0..<2_500 { values += [.int64(7), .int64(Int64(seq)), .double(Double(seq) / 4)] }
        #expect(try connection.insert(insert, values: values, rowsPerStatement: 1_000) == 2_500)
        // Again: every row is a duplicate now.
        #expect(try connection.insert(insert, values: values) == 0)
        try connection.pipeline { pipeline in
            try pipeline.append(insert, values: [.int64(8), .int64(0), .double(1), .int64(8), .int64(1), .double(2)])
        }
        #expect(try count(connection, table) == 2_502)
        expectError(.objectNotInPrerequisiteState) { try connection.insert(insert, values: [.int64(1)]) }
        expectError(.objectNotInPrerequisiteState) { try connection.insert(insert, values: values, rowsPerStatement: 30_000) }
    }

    @Test func copyOfAHundredThousandRows() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("copy")
        try connection.execute("CREATE TABLE \(table) (id bigint, lon float8, name text, flag bool, raw bytea, note text)")
        let rows = 100_000
        let copied = try connection.copyIn(table: table, columns: ["id", "lon", "name", "flag", "raw", "note"]) { writer in
            for id in 0..<rows {
                try writer.startRow()
                try writer.write(Int64(id) - 50_000)
                try writer.write(Double(id) * 0.5)
                try writer.write("név \(id) 🛰️")
                try writer.write(id % 2 == 0)
                try writer.write(bytes: [UInt8(truncatingIfNeeded: id), 0, 255])
                if id % 10 == 0 { try writer.writeNull() } else { try writer.write("") }
            }
            try writer.append(row: [.int64(Int64.min), .double(.nan), .text("last"), .bool(true), .bytea([]), .null])
        }
        #expect(copied == rows + 1)
        let summary = try connection.query("""
            SELECT count(*), sum(id) FILTER (WHERE id > -9223372036854775808), count(*) FILTER (WHERE flag),
                   count(note), sum(lon) FILTER (WHERE lon <> 'NaN') FROM \(table)
            """).row(0)
        #expect(try summary.int64(0) == Int64(rows + 1))
        #expect(try summary.int64(1) == Int64((0..<rows).reduce(0) { $0 + $1 - 50_000 }))
        #expect(try summary.int64(2) == Int64(rows / 2 + 1))
        #expect(try summary.int64(3) == Int64(rows - rows / 10))
        #expect(try summary.double(4) == Double((0..<rows).reduce(0, +)) * 0.5)
        let sample = try connection.query("SELECT name, raw FROM \(table) WHERE id = $1", [.int64(12_345 - 50_000)]).row(0)
        #expect(try sample.text(0) == "név 12345 🛰️")
        #expect(try sample.bytea(1) == [UInt8(truncatingIfNeeded: 12_345), 0, 255])
        let last = try connection.query("SELECT lon, raw FROM \(table) WHERE id = $1", [.int64(Int64.min)], format: .binary).row(0)
        #expect(try last.double(0).isNaN)
        #expect(try last.bytea(1) == [])
    }

    @Test func copyWritesArrayColumns() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("copyarrays")
        try connection.execute("CREATE TABLE \(table) (ids bigint[], ds float8[], ts text[])")
        try connection.copyIn(table: table, columns: ["ids", "ds", "ts"]) { writer in
            try writer.append(row: [.int64Array([1, -2]), .doubleArray([0.5]), .textArray(["a", "Zoë"])])
            try writer.append(row: [.int64Array([]), .null, .textArray([])])
        }
        let rows = try connection.query("SELECT ids::text, ds::text, ts::text FROM \(table) ORDER BY cardinality(ids) DESC")
        #expect(try rows.rows.map { try [$0.text(0), $0.optionalText(1) ?? "NULL", $0.text(2)] } == [["{1,-2}", "{0.5}", "{a,Zoë}"], ["{}", "NULL", "{}"]])
    }

    @Test func aCancelledOrRejectedCopyKeepsNothing() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("copyfail")
        try connection.execute("CREATE TABLE \(table) (id bigint, small int)")
        // A row with too few fields: the writer refuses it, the COPY is cancelled.
        expectError(.objectNotInPrerequisiteState) {
            try connection.copyIn(table: table, columns: ["id", "small"]) { writer in
                try writer.append(row: [1, .null])
                try writer.startRow()
                try writer.write(Int64(2))
                try writer.startRow()
            }
        }
        // A bigint into an int column in binary: the server rejects the field (22P03).
        expectError(SQLState("22P03")) {
            try connection.copyIn(table: table, columns: ["id", "small"]) { writer in
                for id in 0..<20_000 { try writer.append(row: [.int64(Int64(id)), .int64(1)]) }
            }
        }
        #expect(try count(connection, table) == 0)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.copyIn(table: table, columns: ["id"]) { try $0.append(row: [5]) } == 1)
        #expect(try count(connection, table) == 1)
    }
}
