import Tracking
import Storage

extension SQLValue {
    /// An id as stored: its raw text.
    static func id(_ id: some EntityID) -> SQLValue { .text(id.rawValue) }
    static func id(_ id: (some EntityID)?) -> SQLValue { id.map { .text($0.rawValue) } ?? .null }
    static func event(_ id: EventID) -> SQLValue { .integer(id.rawValue) }
}

extension Statement {
    /// The id in text column `column`.
    func id<ID: EntityID>(_ column: Int32, as type: ID.Type = ID.self) -> ID { ID(rawValue: string(column)) }
    func optionalID<ID: EntityID>(_ column: Int32, as type: ID.Type = ID.self) -> ID? { optionalString(column).map(ID.init(rawValue:)) }
}
