/// The placeholders and parameters of an `IN (…)` list, its last value repeated up to the next
/// power of two in count: lists then come in a few lengths, so a PostgreSQL session prepares a
/// few statements of each (its cache of prepared statements is bounded) rather than one a length.
struct InList {
    /// `?, ?, …`, one per parameter.
    let sql: String
    let parameters: [SQLParameter]

    /// - Parameter values: at least one (an empty list is written `NULL`, which matches nothing).
    init(_ values: [SQLParameter]) {
        parameters = values.isEmpty ? [.null] : Self.padded(values)
        sql = Array(repeating: "?", count: parameters.count).joined(separator: ", ")
    }

    /// `values` with the last repeated up to the next power of two in count.
    static func padded<T>(_ values: [T]) -> [T] {
        guard let last = values.last else { return values }
        return padded(values, with: last)
    }

    /// `values` with `filler` repeated after them up to the next power of two in count.
    static func padded<T>(_ values: [T], with filler: T) -> [T] {
        var size = 1
        while size < values.count { size *= 2 }
        return values + Array(repeating: filler, count: size - values.count)
    }
}
