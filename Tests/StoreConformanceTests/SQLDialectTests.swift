import SQLCore
import Testing

/// `SQLDialect.statement`: PostgreSQL's placeholders are numbered in order, a `?` inside a quoted
/// literal is left alone, other text (non-ASCII too) is kept as written; SQLite's is the input.
@Suite struct SQLDialectTests {
    @Test func postgresNumbersPlaceholdersOutsideQuotes() {
        #expect(SQLDialect.postgres.statement("SELECT a FROM t WHERE b = ? AND c = '?' AND d IN (?, ?)")
                == "SELECT a FROM t WHERE b = $1 AND c = '?' AND d IN ($2, $3)")
        let many = Array(repeating: "?", count: 12).joined(separator: ",")
        #expect(SQLDialect.postgres.statement(many) == (1...12).map { "$\($0)" }.joined(separator: ","))
        #expect(SQLDialect.postgres.statement("SELECT 'é?ü' || ?, '—'") == "SELECT 'é?ü' || $1, '—'")
    }

    @Test func sqliteKeepsTheStatement() {
        let sql = "SELECT 'x' WHERE a = ? AND b = ?"
        #expect(SQLDialect.sqlite.statement(sql) == sql)
    }
}
