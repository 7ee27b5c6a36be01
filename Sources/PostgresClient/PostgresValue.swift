import CLibPQ

/// A statement parameter.
///
/// Numbers, booleans, bytes and arrays travel in PostgreSQL's binary format with their type
/// (`bigint`, `double precision`, `boolean`, `bytea`, `bigint[]`, `double precision[]`,
/// `text[]`); text travels in text format with an unspecified type, so the server reads it as
/// whatever the statement needs there (`text`, `jsonb`, `timestamptz`, a numeric literal…).
/// `null` has no type either.
///
/// Arrays carry many rows in one parameter: `INSERT INTO t (a, b) SELECT * FROM
/// unnest($1::bigint[], $2::float8[])` inserts a whole batch with two parameters.
public enum PostgresValue: Sendable, Hashable {
    case null
    case int64(Int64)
    case double(Double)
    case bool(Bool)
    case text(String)
    case bytea([UInt8])
    case int64Array([Int64])
    case doubleArray([Double])
    case textArray([String])

    /// The type sent with the parameter (0: let the server infer it).
    var typeOID: Oid {
        switch self {
        case .null, .text: return 0
        case .int64: return PostgresType.int8
        case .double: return PostgresType.float8
        case .bool: return PostgresType.bool
        case .bytea: return PostgresType.bytea
        case .int64Array: return PostgresType.int8Array
        case .doubleArray: return PostgresType.float8Array
        case .textArray: return PostgresType.textArray
        }
    }

    /// 1 for binary, 0 for text (libpq's format codes).
    var formatCode: Int32 {
        switch self {
        case .null, .text: return 0
        case .int64, .double, .bool, .bytea, .int64Array, .doubleArray, .textArray: return 1
        }
    }
}

extension PostgresValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .int64(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// The type OIDs this client encodes and decodes (`pg_type.oid`, fixed in every PostgreSQL).
enum PostgresType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let name: Oid = 19
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let json: Oid = 114
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let unknown: Oid = 705
    static let bpchar: Oid = 1042
    static let varchar: Oid = 1043
    static let textArray: Oid = 1009
    static let int8Array: Oid = 1016
    static let float8Array: Oid = 1022

    /// Types whose binary form is their text's UTF-8 bytes.
    static func isTextual(_ oid: Oid) -> Bool {
        oid == text || oid == varchar || oid == bpchar || oid == name || oid == json || oid == unknown
    }
}

/// Big-endian encoders shared by statement parameters and binary COPY.
enum BinaryEncoding {
    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        let big = UInt64(bitPattern: value).bigEndian
        withUnsafeBytes(of: big) { bytes.append(contentsOf: $0) }
    }
    static func append(_ value: Int32, to bytes: inout [UInt8]) {
        let big = UInt32(bitPattern: value).bigEndian
        withUnsafeBytes(of: big) { bytes.append(contentsOf: $0) }
    }
    static func append(_ value: Int16, to bytes: inout [UInt8]) {
        let big = UInt16(bitPattern: value).bigEndian
        withUnsafeBytes(of: big) { bytes.append(contentsOf: $0) }
    }
    static func append(_ value: Double, to bytes: inout [UInt8]) {
        append(Int64(bitPattern: value.bitPattern), to: &bytes)
    }

    /// Appends the bytes of `value` as a parameter or COPY field: no length prefix, no text
    /// terminator, nothing for NULL.
    static func append(_ value: PostgresValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: break
        case .int64(let v): append(v, to: &bytes)
        case .double(let v): append(v, to: &bytes)
        case .bool(let v): bytes.append(v ? 1 : 0)
        case .text(let v): bytes.append(contentsOf: v.utf8)
        case .bytea(let v): bytes.append(contentsOf: v)
        case .int64Array(let v):
            appendArrayHeader(count: v.count, element: PostgresType.int8, to: &bytes)
            for element in v {
                append(Int32(8), to: &bytes)
                append(element, to: &bytes)
            }
        case .doubleArray(let v):
            appendArrayHeader(count: v.count, element: PostgresType.float8, to: &bytes)
            for element in v {
                append(Int32(8), to: &bytes)
                append(element, to: &bytes)
            }
        case .textArray(let v):
            appendArrayHeader(count: v.count, element: PostgresType.text, to: &bytes)
            for element in v {
                append(Int32(truncatingIfNeeded: element.utf8.count), to: &bytes)
                bytes.append(contentsOf: element.utf8)
            }
        }
    }

    /// The binary array header: dimensions (1, or 0 when empty), a has-nulls flag (0), the
    /// element type, then the length and lower bound (1) of the one dimension.
    private static func appendArrayHeader(count: Int, element: Oid, to bytes: inout [UInt8]) {
        append(Int32(count == 0 ? 0 : 1), to: &bytes)
        append(Int32(0), to: &bytes)
        append(Int32(bitPattern: element), to: &bytes)
        if count > 0 {
            append(Int32(truncatingIfNeeded: count), to: &bytes)
            append(Int32(1), to: &bytes)
        }
    }
}

/// Statement parameters laid out for libpq: one byte buffer holding every value (text values
/// NUL-terminated, as libpq reads text parameters as C strings), plus the parallel arrays of
/// types, lengths and formats.
struct EncodedParameters {
    private(set) var types: [Oid] = []
    private var bytes: [UInt8] = []
    /// Offset of each value in `bytes`, or -1 for NULL.
    private var offsets: [Int] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []

    /// The most parameters one statement may carry (the protocol counts them in 16 bits).
    static let limit = 65_535

    init(_ values: [PostgresValue]) throws(PostgresError) {
        guard values.count <= Self.limit else {
            throw .client(.objectNotInPrerequisiteState, "\(values.count) parameters: a statement takes at most \(Self.limit)")
        }
        types.reserveCapacity(values.count)
        offsets.reserveCapacity(values.count)
        lengths.reserveCapacity(values.count)
        formats.reserveCapacity(values.count)
        for value in values {
            types.append(value.typeOID)
            formats.append(value.formatCode)
            if case .null = value {
                offsets.append(-1)
                lengths.append(0)
                continue
            }
            if case .text(let text) = value, text.utf8.contains(0) {
                throw .client(.invalidTextRepresentation, "a text parameter contains a NUL character")
            }
            if case .textArray(let texts) = value, texts.contains(where: { $0.utf8.contains(0) }) {
                throw .client(.invalidTextRepresentation, "a text array element contains a NUL character")
            }
            let start = bytes.count
            offsets.append(start)
            BinaryEncoding.append(value, to: &bytes)
            guard let length = Int32(exactly: bytes.count - start) else {
                throw .client(.numericValueOutOfRange, "a parameter of \(bytes.count - start) bytes is too large")
            }
            lengths.append(length)
            if case .text = value { bytes.append(0) }
        }
        // Never empty, so that a zero-length value still gets a non-null pointer (libpq reads a
        // null pointer as SQL NULL).
        bytes.append(0)
    }

    var count: Int32 { Int32(truncatingIfNeeded: types.count) }

    /// Calls `body` with libpq's `paramValues`, `paramLengths` and `paramFormats` pointers,
    /// valid only during the call.
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard offset >= 0, let base else { return nil }
                return base + offset
            }
            return values.withUnsafeBufferPointer { valuePointers in
                lengths.withUnsafeBufferPointer { lengthPointers in
                    formats.withUnsafeBufferPointer { formatPointers in
                        body(valuePointers.baseAddress, lengthPointers.baseAddress, formatPointers.baseAddress)
                    }
                }
            }
        }
    }
}
