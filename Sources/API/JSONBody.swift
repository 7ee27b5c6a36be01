import HTTPServer
import JSONCore
import Tracking

/// A request's JSON object body, with typed field access that throws 400s naming the field.
struct JSONBody {
    let object: JSONObject

    /// Parses the body of `request`: content type must be JSON (415 otherwise), the bytes valid
    /// UTF-8 JSON (400), the top level an object (400).
    init(_ request: Request) throws {
        let value = try Self.parse(request)
        guard case .object(let object) = value else {
            throw TrackingError.invalid("the body must be a JSON object, not \(value.typeName)", code: .wrongType)
        }
        self.object = object
    }

    /// The body of `request` as any JSON value (415 for another content type, 400 when malformed).
    static func parse(_ request: Request) throws -> JSONValue {
        guard let contentType = request.header("content-type") else {
            throw HTTPError(status: 415, code: .unsupportedMediaType, message: "Content-Type must be application/json")
        }
        guard MediaType(contentType)?.isJSON == true else {
            throw HTTPError(status: 415, code: .unsupportedMediaType,
                            message: "Content-Type must be application/json, not \(Self.quoted(contentType))")
        }
        guard !request.body.isEmpty else { throw TrackingError.invalid("a JSON body is required", code: .missingBody) }
        return try JSONParser.parse(request.body)
    }

    init(object: JSONObject) { self.object = object }

    /// A client's header value for a message: at most 100 characters, control characters as `?`.
    static func quoted(_ value: String) -> String {
        String(value.unicodeScalars.prefix(100).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }

    subscript(_ key: String) -> JSONValue? { object[key] }

    func string(_ key: String) throws -> String { try required(key, optionalString(key)) }

    func bool(_ key: String) throws -> Bool { try required(key, optionalBool(key)) }

    func optionalString(_ key: String) throws -> String? { try optional(key, expected: "a string", \.stringValue) }

    func optionalBool(_ key: String) throws -> Bool? { try optional(key, expected: "true or false", \.boolValue) }

    /// A whole number, when present (`1.5`, `"60"` and numbers beyond 64 bits are 400s).
    func optionalInteger(_ key: String) throws -> Int64? { try optional(key, expected: "a whole number", \.int64Value) }

    /// The field `key` as `read` takes it; nil when absent or null, a 400 naming the field and
    /// what it must be (`expected`) when `read` refuses it.
    private func optional<T>(_ key: String, expected: String, _ read: (JSONValue) -> T?) throws -> T? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let typed = read(value) else { throw TrackingError.wrongType(key, expected: expected) }
        return typed
    }

    /// `value`, or a 400 naming the missing field `key`.
    private func required<T>(_ key: String, _ value: T?) throws -> T {
        guard let value else { throw TrackingError.missingField(key) }
        return value
    }
}
