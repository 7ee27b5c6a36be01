/// `INSERT INTO table (columns) VALUES ($1, $2), ($3, $4), … [suffix]` for many rows in one
/// statement; the values of one call are given row after row in one flat array.
///
/// One statement carries at most 65,535 parameters, so at most `65_535 / columns.count` rows;
/// longer inputs are split into statements of `rowsPerStatement` rows (and one shorter last
/// one). The SQL for each row count is prepared once per session.
public struct MultiRowInsert: Sendable, Hashable {
    public let table: String
    public let columns: [String]
    /// Appended after the VALUES list, e.g. `ON CONFLICT DO NOTHING`.
    public let suffix: String

    /// `table` and `columns` are quoted as identifiers (so spell them as created: lower case
    /// for unquoted names); `table` may be `schema.table`.
    public init(table: String, columns: [String], suffix: String = "") {
        self.table = table
        self.columns = columns
        self.suffix = suffix
    }

    /// The most rows one statement can hold.
    public var maximumRowsPerStatement: Int { columns.isEmpty ? 0 : EncodedParameters.limit / columns.count }

    /// The statement for `rows` rows.
    public func sql(rows: Int) -> String {
        let target = table.split(separator: ".", omittingEmptySubsequences: false)
            .map { SQLIdentifier.quoted(String($0)) }.joined(separator: ".")
        var sql = "INSERT INTO \(target) (\(columns.map(SQLIdentifier.quoted).joined(separator: ", "))) VALUES "
        var parameter = 1
        for row in 0..<max(rows, 0) {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<columns.count {
                sql += column == 0 ? "$\(parameter)" : ", $\(parameter)"
                parameter += 1
            }
            sql += ")"
        }
        if !suffix.isEmpty { sql += " " + suffix }
        return sql
    }

    /// The statements `values` needs: the SQL of each and which values it takes (the SQL is
    /// built once per row count).
    func statements(for values: [PostgresValue], rowsPerStatement: Int) throws(PostgresError) -> [(sql: String, range: Range<Int>)] {
        var sqlByRows: [Int: String] = [:]
        return try chunks(of: values, rowsPerStatement: rowsPerStatement).map { chunk in
            if let sql = sqlByRows[chunk.rows] { return (sql, chunk.range) }
            let sql = self.sql(rows: chunk.rows)
            sqlByRows[chunk.rows] = sql
            return (sql, chunk.range)
        }
    }

    private func chunks(of values: [PostgresValue], rowsPerStatement: Int) throws(PostgresError) -> [(rows: Int, range: Range<Int>)] {
        let width = columns.count
        guard width > 0, values.count % width == 0 else {
            throw .misuse("\(values.count) values do not make whole rows of \(width) columns")
        }
        guard rowsPerStatement > 0, rowsPerStatement <= maximumRowsPerStatement else {
            throw .misuse("rowsPerStatement must be 1...\(maximumRowsPerStatement) for \(width) columns")
        }
        var chunks: [(rows: Int, range: Range<Int>)] = []
        var start = 0
        while start < values.count {
            let rows = min(rowsPerStatement, (values.count - start) / width)
            chunks.append((rows, start..<(start + rows * width)))
            start += rows * width
        }
        return chunks
    }
}

extension Connection {
    /// Inserts `values` (row after row) with `insert`, `rowsPerStatement` rows a statement,
    /// each a prepared statement; returns the rows inserted (fewer with `ON CONFLICT DO NOTHING`).
    /// Not atomic by itself: wrap it in `transaction { }`, or use `Pipeline.append(_:values:)`.
    @discardableResult
    public func insert(_ insert: MultiRowInsert, values: [PostgresValue], rowsPerStatement: Int = 1_000) throws(PostgresError) -> Int {
        var inserted = 0
        for statement in try insert.statements(for: values, rowsPerStatement: rowsPerStatement) {
            inserted += try queryPrepared(statement.sql, Array(values[statement.range])).affectedRows
        }
        return inserted
    }
}
