import Storage
import Timestamps
import Tracking

// Model values cross into SQLite here: an id is its raw text, a time INTEGER milliseconds since
// 1970 UTC.

extension SQLValue {
    /// An id as stored: its raw text.
    static func id(_ id: some EntityID) -> SQLValue { .text(id.rawValue) }
    static func id(_ id: (some EntityID)?) -> SQLValue { id.map { .text($0.rawValue) } ?? .null }
    /// A time as stored: milliseconds since 1970.
    static func time(_ time: Timestamp) -> SQLValue { .integer(time.millisecondsSince1970) }
}

extension Statement {
    /// The id in text column `column`.
    func id<ID: EntityID>(_ column: Int32, as type: ID.Type = ID.self) -> ID { ID(rawValue: string(column)) }
}
