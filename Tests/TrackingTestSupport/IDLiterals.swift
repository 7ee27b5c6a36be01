import Tracking

// Test literals for ids (`"u_ann"` where a `UserID` is expected). Only tests import this:
// production code always builds ids from what a client or the store said.
extension UserID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}
extension DeviceID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}
extension GroupID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}
