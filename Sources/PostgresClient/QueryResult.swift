import CLibPQ

/// Which format the server sends result columns in.
public enum ResultFormat: Sendable {
    /// Every type's text output (the default): any column can be read as text.
    case text
    /// Binary: cheaper for numbers and bytes; `text(_:)` then works only on text-like columns.
    case binary

    var code: Int32 { self == .binary ? 1 : 0 }
}

/// The result of one statement; the only owner of its `PGresult`.
///
/// Immutable once made, so it may be read from any thread (libpq never changes a `PGresult`
/// after handing it out; it is freed only in `deinit`).
public final class QueryResult: @unchecked Sendable {
    let handle: OpaquePointer
    /// The SQL text of the statement, for errors.
    public let sql: String?

    init(handle: OpaquePointer, sql: String?) {
        self.handle = handle
        self.sql = sql
    }

    deinit { PQclear(handle) }

    public var rowCount: Int { Int(PQntuples(handle)) }
    public var columnCount: Int { Int(PQnfields(handle)) }

    /// Rows inserted, updated, deleted, copied or selected, from the command tag; 0 when the
    /// command reports none (DDL).
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }
    /// The command tag, e.g. `INSERT 0 3`, `COMMIT`, `ROLLBACK`.
    public var commandTag: String { String(cString: PQcmdStatus(handle)) }

    public func columnName(_ column: Int) -> String? {
        guard column >= 0, column < columnCount, let name = PQfname(handle, Int32(column)) else { return nil }
        return String(cString: name)
    }

    /// The index of the column named `name` (as the server spelled it: unquoted names are lower case).
    public func columnIndex(_ name: String) throws(PostgresError) -> Int {
        let index = Int(PQfnumber(handle, SQLIdentifier.quoted(name)))
        guard index >= 0 else { throw .client(.undefinedColumn, "no column named \(name)", sql: sql) }
        return index
    }

    /// Row `index`, or an error when there is no such row.
    public func row(_ index: Int) throws(PostgresError) -> Row {
        guard index >= 0, index < rowCount else {
            throw .client(.objectNotInPrerequisiteState, "row \(index) of \(rowCount)", sql: sql)
        }
        return Row(result: self, index: Int32(index))
    }

    /// Every row, in order.
    public var rows: Rows { Rows(result: self) }

    /// The first row, or nil when there is none.
    public var first: Row? { rowCount > 0 ? Row(result: self, index: 0) : nil }

    /// The rows of a result as a collection.
    public struct Rows: RandomAccessCollection, Sendable {
        let result: QueryResult
        public var startIndex: Int { 0 }
        public var endIndex: Int { result.rowCount }
        public subscript(position: Int) -> Row { Row(result: result, index: Int32(truncatingIfNeeded: position)) }
    }
}

/// One row of a `QueryResult`; typed getters decode either format and throw (never trap) on
/// NULL where a value is required, on a missing column, or on a value of another type.
///
/// Column indexes are 0-based.
public struct Row: Sendable {
    public let result: QueryResult
    let index: Int32

    public func isNull(_ column: Int) throws(PostgresError) -> Bool {
        let column = try checked(column)
        return PQgetisnull(result.handle, index, column) == 1
    }

    /// `bigint`, `integer` or `smallint` (any integer text in text format).
    public func int64(_ column: Int) throws(PostgresError) -> Int64 {
        let field = try value(column)
        if field.binary {
            switch (field.type, field.bytes.count) {
            case (PostgresType.int8, 8): return Int64(bitPattern: bigEndian(field.bytes))
            case (PostgresType.int4, 4), (PostgresType.oid, 4):
                let raw = UInt32(truncatingIfNeeded: bigEndian(field.bytes))
                return field.type == PostgresType.oid ? Int64(raw) : Int64(Int32(bitPattern: raw))
            case (PostgresType.int2, 2): return Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: bigEndian(field.bytes))))
            default: throw mismatch(column, field, "an integer")
            }
        }
        guard let number = Int64(field.text) else { throw unreadable(column, field, "an integer") }
        return number
    }

    /// `double precision` or `real` (any number text in text format, including `NaN` and `±Infinity`).
    public func double(_ column: Int) throws(PostgresError) -> Double {
        let field = try value(column)
        if field.binary {
            switch (field.type, field.bytes.count) {
            case (PostgresType.float8, 8): return Double(bitPattern: bigEndian(field.bytes))
            case (PostgresType.float4, 4): return Double(Float(bitPattern: UInt32(truncatingIfNeeded: bigEndian(field.bytes))))
            default: throw mismatch(column, field, "a floating-point number")
            }
        }
        guard let number = Double(field.text) else { throw unreadable(column, field, "a number") }
        return number
    }

    public func bool(_ column: Int) throws(PostgresError) -> Bool {
        let field = try value(column)
        if field.binary {
            guard field.type == PostgresType.bool, field.bytes.count == 1 else { throw mismatch(column, field, "a boolean") }
            return field.bytes[field.bytes.startIndex] != 0
        }
        switch field.text {
        case "t", "true": return true
        case "f", "false": return false
        default: throw unreadable(column, field, "a boolean")
        }
    }

    /// Text, in either format for text-like columns; any column's text output in text format.
    public func text(_ column: Int) throws(PostgresError) -> String {
        let field = try value(column)
        if field.binary && !PostgresType.isTextual(field.type) { throw mismatch(column, field, "text") }
        return field.text
    }

    /// `bytea`: raw bytes in binary format, decoded from the `\x…` hex output in text format.
    public func bytea(_ column: Int) throws(PostgresError) -> [UInt8] {
        let field = try value(column)
        if field.binary {
            guard field.type == PostgresType.bytea else { throw mismatch(column, field, "bytea") }
            return Array(field.bytes)
        }
        guard let bytes = Hex.decodeBytea(field.bytes) else { throw unreadable(column, field, "bytea in hex output") }
        return bytes
    }

    public func optionalInt64(_ column: Int) throws(PostgresError) -> Int64? { try isNull(column) ? nil : int64(column) }
    public func optionalDouble(_ column: Int) throws(PostgresError) -> Double? { try isNull(column) ? nil : double(column) }
    public func optionalBool(_ column: Int) throws(PostgresError) -> Bool? { try isNull(column) ? nil : bool(column) }
    public func optionalText(_ column: Int) throws(PostgresError) -> String? { try isNull(column) ? nil : text(column) }
    public func optionalBytea(_ column: Int) throws(PostgresError) -> [UInt8]? { try isNull(column) ? nil : bytea(column) }

    // MARK: Field access

    /// One non-NULL field: its bytes (valid as long as `result` lives), type and format.
    private struct Field {
        let bytes: UnsafeBufferPointer<UInt8>
        let type: Oid
        let binary: Bool
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    private func checked(_ column: Int) throws(PostgresError) -> Int32 {
        guard column >= 0, column < result.columnCount else {
            throw .client(.undefinedColumn, "column \(column) of \(result.columnCount)", sql: result.sql)
        }
        return Int32(column)
    }

    private func value(_ column: Int) throws(PostgresError) -> Field {
        let column = try checked(column)
        let handle = result.handle
        guard PQgetisnull(handle, index, column) == 0 else {
            throw .client(.nullValueNotAllowed, "column \(result.columnName(Int(column)) ?? "\(column)") is NULL", sql: result.sql)
        }
        let length = Int(PQgetlength(handle, index, column))
        let start = PQgetvalue(handle, index, column).map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) }
        return Field(bytes: UnsafeBufferPointer(start: length > 0 ? start : nil, count: length > 0 && start != nil ? length : 0),
                     type: PQftype(handle, column), binary: PQfformat(handle, column) == 1)
    }

    private func bigEndian(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private func mismatch(_ column: Int, _ field: Field, _ wanted: String) -> PostgresError {
        .client(.datatypeMismatch, "column \(result.columnName(column) ?? "\(column)") (type \(field.type), \(field.bytes.count) bytes) is not \(wanted)",
                sql: result.sql)
    }

    private func unreadable(_ column: Int, _ field: Field, _ wanted: String) -> PostgresError {
        .client(.invalidTextRepresentation, "column \(result.columnName(column) ?? "\(column)") holds \(field.text.prefix(40)), not \(wanted)",
                sql: result.sql)
    }
}

/// Hex digits, for `bytea`'s text output.
enum Hex {
    /// Decodes `\x0a1b…`; nil for anything else (the old escape output, odd length, bad digits).
    static func decodeBytea(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count >= 2, text.count % 2 == 0, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2 - 1)
        var position = 2
        while position + 1 < text.count {
            guard let high = digit(text[position]), let low = digit(text[position + 1]) else { return nil }
            bytes.append(high << 4 | low)
            position += 2
        }
        return bytes
    }

    private static func digit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
