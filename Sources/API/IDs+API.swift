import HTTPServer
import JSONCore
import Tracking

extension Request {
    /// Path parameter `name` as a typed id (empty when the pattern has no such segment).
    func id<ID: EntityID>(_ name: String = "id", as type: ID.Type = ID.self) -> ID { ID(rawValue: parameter(name)) }
}

extension JSONValue {
    /// An id as JSON: its raw text.
    static func id(_ id: some EntityID) -> JSONValue { .string(id.rawValue) }
    static func event(_ id: EventID) -> JSONValue { .number(JSONNumber(id.rawValue)) }
}
