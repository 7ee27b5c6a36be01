import CLibPQ

extension Connection {
    /// Bulk-loads rows with `COPY table (columns) FROM STDIN (FORMAT binary)`; `body` writes
    /// the rows. Returns the number of rows copied.
    ///
    /// Binary COPY sends each value in its column's binary form, so the value types must match
    /// the columns exactly: `Int64` → `bigint`, `Double` → `double precision`, `String` →
    /// `text`/`varchar`, `Bool` → `boolean`, bytes → `bytea`, arrays → `bigint[]`,
    /// `double precision[]`, `text[]` (anything else fails with `22P03`).
    /// Outside a transaction the COPY is one transaction of its own. If `body` throws, the COPY
    /// is cancelled (nothing of it is kept) and the error rethrown; otherwise errors are
    /// `PostgresError`s.
    @discardableResult
    public func copyIn(table: String, columns: [String], _ body: (CopyInWriter) throws -> Void) throws -> Int {
        let target = table.split(separator: ".", omittingEmptySubsequences: false)
            .map { SQLIdentifier.quoted(String($0)) }.joined(separator: ".")
        let sql = "COPY \(target) (\(columns.map(SQLIdentifier.quoted).joined(separator: ", "))) FROM STDIN (FORMAT binary)"
        let start = try execute(sql)
        guard PQresultStatus(start.handle) == PGRES_COPY_IN else {
            throw PostgresError.misuse("COPY did not start (\(start.commandTag))")
        }
        let writer = CopyInWriter(connection: self, columnCount: columns.count)
        do {
            try body(writer)
            try writer.finishRows()
        } catch {
            writer.isOpen = false
            // Cancel: the server fails the COPY (57014) and keeps none of it. When the COPY
            // was no longer in progress, the server had already failed it: report its reason.
            let cancelled = PQputCopyEnd(handle, "cancelled by the client: \(error)") == 1
            let serverError = drainResults(sql: sql)
            if !cancelled, let serverError { throw serverError }
            throw error
        }
        writer.isOpen = false
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw drainResults(sql: sql) ?? failure("ending the COPY", sql: sql)
        }
        let result: QueryResult
        do throws(PostgresError) {
            result = try check(PQgetResult(handle), sql: sql)
        } catch {
            _ = drainResults(sql: sql)
            throw error
        }
        _ = drainResults(sql: sql)
        return result.affectedRows
    }

    /// Reads results until libpq has none left (after a COPY); returns the first error among them.
    private func drainResults(sql: String) -> PostgresError? {
        var firstError: PostgresError?
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) == PGRES_COPY_IN {
                // Still copying (the end could not be sent): libpq would return this forever.
                PQclear(result)
                return firstError ?? failure("ending the COPY", sql: sql)
            }
            do throws(PostgresError) {
                _ = try check(result, sql: sql)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        return firstError
    }
}

/// Writes the rows of one binary COPY; exists only inside `Connection.copyIn`.
///
/// Each row is `startRow()` followed by exactly one `write…` per column, in column order
/// (or `append(row:)` with the whole row). Data is sent in blocks of about 256 KiB.
public final class CopyInWriter {
    private unowned let connection: Connection
    private let columnCount: Int
    private var buffer: [UInt8] = []
    /// Fields written in the current row; -1 before the first row.
    private var fieldsInRow = -1
    public private(set) var rowCount = 0
    var isOpen = true

    private static let blockSize = 256 * 1024
    /// The binary COPY signature, flags and header extension length.
    private static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    init(connection: Connection, columnCount: Int) {
        self.connection = connection
        self.columnCount = columnCount
        buffer.reserveCapacity(Self.blockSize + 4096)
        buffer.append(contentsOf: Self.header)
    }

    /// Begins a row (ends the previous one, which must have all its columns).
    public func startRow() throws(PostgresError) {
        try endRow()
        if buffer.count >= Self.blockSize { try sendBuffer() }
        BinaryEncoding.append(Int16(truncatingIfNeeded: columnCount), to: &buffer)
        fieldsInRow = 0
        rowCount += 1
    }

    public func write(_ value: Int64) throws(PostgresError) {
        try field(length: 8)
        BinaryEncoding.append(value, to: &buffer)
    }

    public func write(_ value: Double) throws(PostgresError) {
        try field(length: 8)
        BinaryEncoding.append(value, to: &buffer)
    }

    public func write(_ value: Bool) throws(PostgresError) {
        try field(length: 1)
        buffer.append(value ? 1 : 0)
    }

    public func write(_ value: String) throws(PostgresError) {
        try field(length: value.utf8.count)
        buffer.append(contentsOf: value.utf8)
    }

    public func write(bytes: [UInt8]) throws(PostgresError) {
        try field(length: bytes.count)
        buffer.append(contentsOf: bytes)
    }

    public func writeNull() throws(PostgresError) {
        try field(length: nil)
    }

    /// A whole row at once.
    public func append(row: [PostgresValue]) throws(PostgresError) {
        try startRow()
        for value in row {
            switch value {
            case .null: try writeNull()
            case .int64(let v): try write(v)
            case .double(let v): try write(v)
            case .bool(let v): try write(v)
            case .text(let v): try write(v)
            case .bytea(let v): try write(bytes: v)
            case .int64Array, .doubleArray, .textArray:
                var encoded: [UInt8] = []
                BinaryEncoding.append(value, to: &encoded)
                try write(bytes: encoded)
            }
        }
    }

    /// Ends the last row, appends the trailer and sends what is left.
    func finishRows() throws(PostgresError) {
        try endRow()
        BinaryEncoding.append(Int16(-1), to: &buffer)
        try sendBuffer()
    }

    private func field(length: Int?) throws(PostgresError) {
        guard isOpen else { throw .misuse("the COPY is over: write rows inside Connection.copyIn") }
        guard fieldsInRow >= 0 else { throw .misuse("call startRow() before writing a COPY field") }
        guard fieldsInRow < columnCount else { throw .misuse("a COPY row has more than its \(columnCount) columns") }
        fieldsInRow += 1
        guard let length else {
            BinaryEncoding.append(Int32(-1), to: &buffer)
            return
        }
        guard let length32 = Int32(exactly: length) else { throw .client(.numericValueOutOfRange, "a COPY field of \(length) bytes is too large") }
        BinaryEncoding.append(length32, to: &buffer)
    }

    private func endRow() throws(PostgresError) {
        guard isOpen else { throw .misuse("the COPY is over: write rows inside Connection.copyIn") }
        if fieldsInRow >= 0 && fieldsInRow != columnCount {
            throw .misuse("a COPY row has \(fieldsInRow) of its \(columnCount) columns")
        }
    }

    private func sendBuffer() throws(PostgresError) {
        guard !buffer.isEmpty else { return }
        let handle = connection.handle
        var offset = 0
        while offset < buffer.count {
            let count = min(buffer.count - offset, Int(Int32.max))
            let sent = buffer.withUnsafeBufferPointer { bytes in
                bytes.baseAddress.map { base in
                    PQputCopyData(handle, UnsafeRawPointer(base + offset).assumingMemoryBound(to: CChar.self), Int32(count))
                } ?? -1
            }
            try connection.check(sent == 1, "sending COPY data")
            offset += count
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
