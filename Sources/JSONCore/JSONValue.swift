/// A JSON value.
///
/// Build values with literals (`let v: JSONValue = ["id": 42, "tags": ["a", "b"], "x": nil]`),
/// parse them with `JSONParser`, and serialize them with `serialized()` / `JSONWriter`.
///
/// Equality is structural; objects compare without regard to member order and numbers
/// compare as described in `JSONNumber`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

// MARK: - Convenience initializers

extension JSONValue {
    public init(_ value: Bool) { self = .bool(value) }
    public init(_ value: String) { self = .string(value) }
    public init(_ value: Int) { self = .number(JSONNumber(value)) }
    public init(_ value: Int64) { self = .number(JSONNumber(value)) }
    /// Non-finite values are allowed but serialize as `null`.
    public init(_ value: Double) { self = .number(JSONNumber(value)) }
    public init(_ value: JSONNumber) { self = .number(value) }
    public init(_ value: [JSONValue]) { self = .array(value) }
    public init(_ value: JSONObject) { self = .object(value) }
}

// MARK: - Accessors

extension JSONValue {
    /// The member `key` when this is an object containing it; otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when this is an array and `index` is in bounds; otherwise `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as `Double` (the nearest double), when this is a number.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The number as `Int64`, only when it is an integer represented exactly
    /// (see `JSONNumber.int64`). `1.5`, `1e20` and `9223372036854775808` give `nil`.
    public var int64Value: Int64? {
        if case .number(let value) = self { return value.int64 }
        return nil
    }

    /// Like `int64Value`, as `Int` (nil if it does not fit `Int` on this platform).
    public var intValue: Int? {
        guard let value = int64Value else { return nil }
        return Int(exactly: value)
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// "null", "boolean", "number", "string", "array" or "object" (for error messages).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Serialization

extension JSONValue: CustomStringConvertible {
    /// Compact UTF-8 JSON text.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        writer.write(self)
        return writer.bytes
    }

    /// Compact JSON text as a `String`.
    public func serializedString() -> String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Same as `serializedString()`.
    public var description: String { serializedString() }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Duplicate keys in the literal: the later value wins (no trap).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
