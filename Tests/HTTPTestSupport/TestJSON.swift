import Foundation

/// Minimal JSON access for tests (Foundation's parser: independent of the server's own).
public struct TestJSON: @unchecked Sendable {
    public let value: Any?
    public init(_ bytes: [UInt8]) { value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) }
    public init(value: Any?) { self.value = value }
    public subscript(_ key: String) -> TestJSON { TestJSON(value: (value as? [String: Any])?[key]) }
    public subscript(_ index: Int) -> TestJSON {
        guard let array = value as? [Any], index < array.count else { return TestJSON(value: nil) }
        return TestJSON(value: array[index])
    }
    public var string: String? { value as? String }
    public var int: Int? { (value as? NSNumber)?.intValue }
    public var double: Double? { (value as? NSNumber)?.doubleValue }
    public var bool: Bool? { (value as? NSNumber)?.boolValue }
    public var array: [TestJSON] { ((value as? [Any]) ?? []).map { TestJSON(value: $0) } }
    public var count: Int { (value as? [Any])?.count ?? (value as? [String: Any])?.count ?? 0 }
    public var isNull: Bool { value is NSNull }
    public var exists: Bool { value != nil }
}

extension HTTPTestClient.Reply {
    public var json: TestJSON { TestJSON(body) }
    /// The `error.code` of an API error body.
    public var errorCode: String? { json["error"]["code"].string }
}
