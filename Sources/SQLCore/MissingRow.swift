/// A statement that must give a row gave none (a store's fault, never a client's).
public struct MissingRow: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
