/// A JSON number.
///
/// Every number carries its nearest `Double` (`double`), and additionally an exact
/// `Int64` (`int64`) whenever the number is an integer that can be represented exactly:
///
/// - A literal written without fraction or exponent (`123`, `-9223372036854775808`) gets
///   its exact `Int64` value when it fits in `Int64`, even beyond 2^53 where `Double`
///   loses precision. This is what makes 64-bit ids and epoch milliseconds round-trip.
/// - Any other number (a literal with a fraction or exponent such as `3.0` or `1e3`, or a
///   number created from a `Double`) gets an `int64` only when its `double` is an integer
///   with magnitude ≤ 2^53, where `Double` represents every integer exactly.
///
/// Whenever `int64` is non-nil, `double` is its correctly rounded conversion. For
/// fraction/exponent literals `int64` derives from the correctly rounded `double`, so
/// digits beyond `Double` precision are not preserved (`1.00000000000000000001` gives
/// `int64 == 1`), as in virtually all JSON implementations. Use `isInteger` to tell
/// whether a number is whole at all (e.g. an integer literal too large for `Int64`).
///
/// Two numbers are equal when both `int64` and `double` are equal (`-0` equals `0`).
/// Numbers produced by the parser are always finite. A number built from a non-finite
/// `Double` (NaN, ±infinity) is serialized as `null`.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    // Packed representation (16 bytes instead of 17 for `Double` + `Int64?`):
    // `int64` is present iff `_int != 0 || _double == 0`; in that case `_double == Double(_int)`.
    // When absent, `_int == 0` and `_double != 0` (an absent int64 implies `double` is not
    // an integer of magnitude ≤ 2^53, so in particular not zero).
    private let _double: Double
    private let _int: Int64

    /// 2^53: every integer with at most this magnitude is exactly representable as `Double`.
    static let maxExactDoubleInteger: Double = 9_007_199_254_740_992

    /// Creates an integer number. `int64` is exactly `value`; `double` is the nearest `Double`.
    public init(_ value: Int64) {
        self.init(uncheckedDouble: Double(value), int: value)
    }

    /// Creates an integer number from an `Int`.
    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// Creates a number from a `Double`. `int64` is set when `value` is an integer with
    /// magnitude ≤ 2^53. Non-finite values are allowed but are serialized as `null`.
    public init(_ value: Double) {
        if let exact = JSONNumber.exactSmallInteger(value) {
            self.init(uncheckedDouble: value, int: exact)
        } else {
            self.init(uncheckedDouble: value, int: 0)
        }
    }

    /// Internal memberwise initializer; callers uphold the packing invariant above.
    init(uncheckedDouble: Double, int: Int64) {
        _double = uncheckedDouble
        _int = int
    }

    /// The nearest `Double` to the number (correctly rounded when parsed).
    public var double: Double { _double }

    /// The exact integer value, when the number is an integer representable exactly in
    /// `Int64` (see the type documentation for the precise rule); otherwise `nil`.
    public var int64: Int64? {
        (_int != 0 || _double == 0) ? _int : nil
    }

    /// Whether the number is a whole number (`3`, `-0`, `3.0`, `1e3`,
    /// `123456789012345678901234567890`, `1e300`). False for `1.5`, and for non-finite values.
    public var isInteger: Bool {
        if _int != 0 || _double == 0 { return true }
        // Without an int64, the value is either not an integer, or has magnitude > 2^53
        // where every finite Double is an integer.
        return _double.isFinite && _double.magnitude > JSONNumber.maxExactDoubleInteger
    }

    /// `value` as `Int64` when it is an integer of magnitude ≤ 2^53, else `nil` (also for
    /// NaN). Implemented with conversions only, so it needs no libm rounding functions.
    @inline(__always)
    static func exactSmallInteger(_ value: Double) -> Int64? {
        guard value.magnitude <= maxExactDoubleInteger else { return nil }
        let truncated = Int64(value)
        return Double(truncated) == value ? truncated : nil
    }

    /// Exact powers of ten representable in `Double` (10^0 ... 10^22).
    @inline(__always)
    static func exactPowerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs._int == rhs._int && lhs._double == rhs._double
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(_int)
        // `Double` hashing already treats -0.0 and 0.0 alike, matching `==`.
        hasher.combine(_double)
    }

    /// The JSON text of the number, exactly as `JSONWriter` writes it.
    public var description: String {
        var writer = JSONWriter(capacity: 24)
        writer.number(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    public init(floatLiteral value: Double) {
        self.init(value)
    }
}
