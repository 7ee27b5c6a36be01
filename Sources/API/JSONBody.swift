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

    func string(_ key: String) throws -> String {
        guard let value = object[key], !value.isNull else { throw TrackingError.missingField(key) }
        guard let text = value.stringValue else { throw TrackingError.wrongType(key, expected: "a string") }
        return text
    }

    func optionalString(_ key: String) throws -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw TrackingError.wrongType(key, expected: "a string") }
        return text
    }

    func optionalBool(_ key: String) throws -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw TrackingError.wrongType(key, expected: "true or false") }
        return flag
    }

    /// A whole number, when present (`1.5`, `"60"` and numbers beyond 64 bits are 400s).
    func optionalInteger(_ key: String) throws -> Int64? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.int64Value else { throw TrackingError.wrongType(key, expected: "a whole number") }
        return number
    }

    func bool(_ key: String) throws -> Bool {
        guard let value = object[key], !value.isNull else { throw TrackingError.missingField(key) }
        guard let flag = value.boolValue else { throw TrackingError.wrongType(key, expected: "true or false") }
        return flag
    }
}
