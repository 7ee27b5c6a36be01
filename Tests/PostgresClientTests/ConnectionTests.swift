import PostgresClient
import Testing

@Suite("PostgreSQL connection, parameters and types", TestDatabase.available)
struct ConnectionTests {
    @Test func connectsAndReportsTheSession() throws {
        let connection = try TestDatabase.connect()
        #expect(connection.status == .ok)
        #expect(connection.transactionStatus == .idle)
        #expect(connection.serverVersion >= 150_000)
        #expect(connection.parameter("in_hot_standby") == "off")
        #expect(connection.parameter("server_encoding") == "UTF8")
        let pid = try connection.query("SELECT pg_backend_pid()").row(0).int64(0)
        #expect(pid == Int64(connection.backendPID))
        #expect(try connection.query("SELECT $1::text || $2::text", ["a", "b"]).row(0).text(0) == "ab")
    }

    @Test func refusedConnectionIsAnErrorNotACrash() throws {
        // Port 1: nothing listens there (and nothing may, without root).
        let refused = expectError(.unableToConnect) {
            _ = try Connection("postgresql://postgres@127.0.0.1:1/postgres?connect_timeout=5")
        }
        #expect(refused?.isConnectionLost == true && refused?.isUnavailable == true && refused?.origin == .connection)
        #expect(throws: PostgresError.self) { _ = try Connection("this is not a connection string") }
    }

    static let values: [PostgresValue] = [
        .null, .int64(0), .int64(-1), .int64(Int64.max), .int64(Int64.min), .int64(9_007_199_254_740_993),
        .double(0), .double(-0.0), .double(3.141592653589793), .double(-1e-300), .double(1.7976931348623157e308),
        .double(.nan), .double(.infinity), .double(-.infinity),
        .bool(true), .bool(false),
        .text(""), .text("plain"), .text("Zoë 東京 🛰️ e\u{301} \"quoted\" 'single' \\ back\nline\ttab"),
        .bytea([]), .bytea(Array(0...255)), .bytea([0, 0, 0]),
    ]

    @Test(arguments: [ResultFormat.text, .binary])
    func everyValueRoundTripsThroughSelect(format: ResultFormat) throws {
        let connection = try TestDatabase.connect()
        for value in Self.values {
            let cast: String
            switch value {
            case .null: cast = "$1::bigint"
            case .int64: cast = "$1::bigint"
            case .double: cast = "$1::float8"
            case .bool: cast = "$1::bool"
            case .text: cast = "$1::text"
            case .bytea: cast = "$1::bytea"
            case .int64Array, .doubleArray, .textArray: continue  // arrayParametersCarryManyRows
            }
            let row = try connection.query("SELECT \(cast)", [value], format: format).row(0)
            try expectRow(row, column: 0, holds: value)
        }
    }

    @Test func everyValueRoundTripsThroughATable() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("types")
        try connection.execute("CREATE TABLE \(table) (n bigint, d float8, b bool, t text, y bytea)")
        let rows: [[PostgresValue]] = [
            [.int64(Int64.min), .double(.nan), .bool(true), .text("🛰️ Zoë"), .bytea(Array(0...255))],
            [.int64(Int64.max), .double(-.infinity), .bool(false), .text(""), .bytea([])],
            [.null, .null, .null, .null, .null],
        ]
        for row in rows {
            try connection.queryPrepared("INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5)", row)
        }
        for format in [ResultFormat.text, .binary] {
            let result = try connection.query("SELECT n, d, b, t, y FROM \(table) ORDER BY n NULLS LAST", format: format)
            #expect(result.rowCount == 3)
            for (index, expected) in rows.enumerated() {
                for (column, value) in expected.enumerated() {
                    try expectRow(try result.row(index), column: column, holds: value)
                }
            }
        }
    }

    private func expectRow(_ row: Row, column: Int, holds value: PostgresValue) throws {
        switch value {
        case .null:
            #expect(try row.isNull(column))
            #expect(try row.optionalInt64(column) == nil)
        case .int64(let v): #expect(try row.int64(column) == v)
        case .double(let v):
            let read = try row.double(column)
            #expect(read.bitPattern == v.bitPattern || (read.isNaN && v.isNaN), "\(read) vs \(v)")
        case .bool(let v): #expect(try row.bool(column) == v)
        case .text(let v): #expect(try row.text(column) == v)
        case .bytea(let v): #expect(try row.bytea(column) == v)
        case .int64Array, .doubleArray, .textArray: Issue.record("arrays are read back as rows, not columns")
        }
    }

    @Test func textParametersTakeTheTypeTheStatementNeeds() throws {
        let connection = try TestDatabase.connect()
        let row = try connection.query("SELECT $1::jsonb ->> 'a', $2::timestamptz = '2026-11-30T08:00:00Z', $3::numeric * 2",
                                       [.text(#"{"a": "x"}"#), .text("2026-11-30 08:00:00+00"), .text("1.25")]).row(0)
        #expect(try row.text(0) == "x")
        #expect(try row.bool(1))
        #expect(try row.double(2) == 2.5)
        #expect(try row.text(2) == "2.50")
    }

    @Test func arrayParametersCarryManyRows() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("arrays")
        try connection.execute("CREATE TABLE \(table) (n bigint, d float8, t text)")
        let numbers: [Int64] = [Int64.min, -1, 0, Int64.max]
        let doubles: [Double] = [-.infinity, -0.5, 0, 1e300]
        let texts = ["", "Zoë", "🛰️ 東京", "comma, \"quote\" {brace}"]
        let inserted = try connection.queryPrepared(
            "INSERT INTO \(table) SELECT * FROM unnest($1::bigint[], $2::float8[], $3::text[])",
            [.int64Array(numbers), .doubleArray(doubles), .textArray(texts)]).affectedRows
        #expect(inserted == 4)
        let rows = try connection.query("SELECT n, d, t FROM \(table) ORDER BY n", format: .binary)
        #expect(try rows.rows.map { try $0.int64(0) } == numbers)
        #expect(try rows.rows.map { try $0.double(1) } == doubles)
        #expect(try rows.rows.map { try $0.text(2) } == texts)
        let empty = try connection.query("SELECT cardinality($1::bigint[]), cardinality($2::text[])", [.int64Array([]), .textArray([])]).row(0)
        #expect(try empty.int64(0) == 0 && empty.int64(1) == 0)
        expectError(.invalidTextRepresentation) { try connection.query("SELECT $1::text[]", [.textArray(["a\u{0}b"])]) }
    }

    @Test func readingAColumnAsTheWrongThingThrows() throws {
        let connection = try TestDatabase.connect()
        let row = try connection.query("SELECT NULL::bigint, 'abc'::text, 1.5::float8, 7::bigint").row(0)
        expectError(.nullValueNotAllowed) { _ = try row.int64(0) }
        expectError(.invalidTextRepresentation) { _ = try row.int64(1) }
        expectError(.invalidTextRepresentation) { _ = try row.bool(2) }
        expectError(.undefinedColumn) { _ = try row.text(9) }
        expectError(.undefinedColumn) { _ = try row.isNull(-1) }
        #expect(try row.text(3) == "7")
        let binary = try connection.query("SELECT 7::bigint", format: .binary).row(0)
        expectError(.datatypeMismatch) { _ = try binary.text(0) }
        expectError(.datatypeMismatch) { _ = try binary.double(0) }
        let empty = try connection.query("SELECT 1 WHERE false")
        #expect(empty.first == nil)
        #expect(throws: PostgresError.self) { try empty.row(0) }
        #expect(try connection.query("SELECT 1 AS \"Mixed Case\"").columnIndex("Mixed Case") == 0)
        #expect(throws: PostgresError.self) { try empty.columnIndex("missing") }
    }

    @Test func preparedStatementsAreCachedPerSQLAndParameterTypes() throws {
        let connection = try TestDatabase.connect()
        let sql = "SELECT $1::text || '!'"
        #expect(try connection.queryPrepared(sql, ["a"]).row(0).text(0) == "a!")
        #expect(try connection.queryPrepared(sql, ["b"]).row(0).text(0) == "b!")
        #expect(connection.preparedStatementCount == 1)
        let count = "SELECT count(*) FROM pg_prepared_statements"
        #expect(try connection.query(count).row(0).int64(0) == 1)
        // The same text with a bigint parameter is another statement (binary bigint ≠ text).
        #expect(try connection.queryPrepared(sql, [.int64(5)]).row(0).text(0) == "5!")
        #expect(connection.preparedStatementCount == 2)
        // The session lost them (DISCARD ALL): one failure, then prepared again.
        try connection.execute("DEALLOCATE ALL")
        expectError(.invalidSQLStatementName) { try connection.queryPrepared(sql, ["c"]) }
        #expect(try connection.queryPrepared(sql, ["d"]).row(0).text(0) == "d!")
        // A statement the server rejects is not kept.
        #expect(throws: PostgresError.self) { try connection.queryPrepared("SELEC 1") }
        #expect(connection.preparedStatementCount == 2)
    }

    @Test func serverErrorsCarryTheirSQLState() throws {
        let connection = try TestDatabase.connect()
        let table = TestDatabase.uniqueName("unique")
        try connection.execute("CREATE TABLE \(table) (id bigint PRIMARY KEY)")
        try connection.query("INSERT INTO \(table) VALUES ($1)", [1])
        let duplicate = expectError(.uniqueViolation) { try connection.query("INSERT INTO \(table) VALUES ($1)", [1]) }
        #expect(duplicate?.isUniqueViolation == true)
        #expect(duplicate?.origin == .server)
        #expect(duplicate?.constraint == "\(table)_pkey")
        #expect(duplicate?.table == table)
        #expect(duplicate?.isUnavailable == false)
        expectError(.syntaxError) { try connection.execute("SELEC 1") }
        expectError(SQLState("22012")) { try connection.query("SELECT 1 / $1::int", [.text("0")]) }
        expectError(.invalidTextRepresentation) { try connection.query("SELECT $1::text", [.text("nul \u{0} inside")]) }
        // The session is still usable after every one of them.
        #expect(try connection.query("SELECT count(*) FROM \(table)").row(0).int64(0) == 1)
    }
}
