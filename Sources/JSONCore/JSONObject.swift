/// An ordered JSON object: unique string keys in insertion order.
///
/// Lookup by key is a linear scan for small objects (≤ 8 members) and goes through a
/// hash index for larger ones, so it stays cheap for the typical tiny object while
/// remaining O(1) on average for big ones. Iteration and serialization follow insertion
/// order.
///
/// Keys are compared with Swift `String` equality (Unicode canonical equivalence).
///
/// Equality (`==`) ignores member order: two objects are equal when they have the same
/// keys mapped to equal values, as in JSON semantics.
public struct JSONObject: Sendable, Equatable, RandomAccessCollection, CustomStringConvertible {
    public typealias Element = (key: String, value: JSONValue)
    public typealias Index = Int
    public typealias Indices = Range<Int>

    /// Objects with more members than this get a hash index.
    static let linearScanLimit = 8

    private var elements: [Element]
    /// Key → position. Present exactly when `elements.count > linearScanLimit`.
    private var hashIndex: [String: Int]?

    /// Creates an empty object.
    public init() {
        elements = []
        hashIndex = nil
    }

    /// Creates an object from key/value pairs, keeping their order.
    /// If a key appears more than once, the later value replaces the earlier one
    /// (which keeps its original position).
    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        elements.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            updateValue(value, forKey: key)
        }
    }

    /// Used by the parser, which has already rejected duplicate keys and, for objects with
    /// more than `linearScanLimit` members, built the index.
    init(uniqueElements: [Element], index: [String: Int]?) {
        elements = uniqueElements
        if uniqueElements.count > JSONObject.linearScanLimit {
            hashIndex = index ?? JSONObject.buildIndex(uniqueElements)
        } else {
            hashIndex = nil
        }
    }

    private static func buildIndex(_ elements: [Element]) -> [String: Int] {
        var index = [String: Int](minimumCapacity: elements.count)
        for (position, element) in elements.enumerated() {
            index[element.key] = position
        }
        return index
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public var count: Int { elements.count }
    public var isEmpty: Bool { elements.isEmpty }

    public subscript(position: Int) -> Element {
        elements[position]
    }

    // MARK: Keyed access

    /// The keys, in order.
    public var keys: [String] { elements.map(\.key) }

    /// The values, in key order.
    public var values: [JSONValue] { elements.map(\.value) }

    /// The position of `key`, if present.
    public func index(forKey key: String) -> Int? {
        if let hashIndex {
            return hashIndex[key]
        }
        for position in elements.indices where elements[position].key == key {
            return position
        }
        return nil
    }

    /// The value for `key`. Setting `nil` removes the member; setting a value replaces an
    /// existing member in place or appends a new one.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = index(forKey: key) else { return nil }
            return elements[position].value
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Replaces the value for `key` in place, or appends it. Returns the old value.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let position = index(forKey: key) {
            let old = elements[position].value
            elements[position].value = value
            return old
        }
        elements.append((key, value))
        if hashIndex != nil {
            hashIndex![key] = elements.count - 1
        } else if elements.count > JSONObject.linearScanLimit {
            hashIndex = JSONObject.buildIndex(elements)
        }
        return nil
    }

    /// Removes the member for `key` (O(n)). Returns the removed value.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = index(forKey: key) else { return nil }
        let old = elements.remove(at: position).value
        hashIndex = elements.count > JSONObject.linearScanLimit ? JSONObject.buildIndex(elements) : nil
        return old
    }

    // MARK: Equatable / description

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Keys are unique on both sides and counts match, so "every lhs member is in rhs
        // with an equal value" is set equality.
        for (key, value) in lhs.elements {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }

    /// Compact JSON text of the object.
    public var description: String {
        JSONValue.object(self).serializedString()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Duplicate keys in the literal: the later value wins (no trap).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
