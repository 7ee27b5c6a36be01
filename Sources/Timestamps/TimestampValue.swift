/// A point in time: milliseconds since 1970-01-01T00:00:00Z (UTC), written as RFC 3339 with
/// milliseconds (`2026-11-30T08:15:00.000Z`).
///
/// Eight bytes, the same layout as the `Int64` it wraps; `@frozen` with inlinable members so it
/// costs nothing over the bare count across modules. Every `Int64` is a valid value (years
/// outside 0000–9999 format as ISO 8601 expanded years). Arithmetic never traps: `adding` and
/// `+`/`-` saturate at the ends of `Int64` (about 292 million years either side of 1970).
///
/// The stores and the JSON writers convert to and from `millisecondsSince1970` at their
/// boundary; the static helpers over bare milliseconds stay for the code that keeps them.
@frozen
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z; negative before.
    public let millisecondsSince1970: Int64

    @inlinable
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The time `text` (RFC 3339, see ``parseRFC3339(_:assumeUTC:)``) names, or nil.
    public init?(rfc3339 text: some StringProtocol, assumeUTC: Bool = false) {
        guard let milliseconds = Self.parseRFC3339(text, assumeUTC: assumeUTC) else { return nil }
        self.init(millisecondsSince1970: milliseconds)
    }

    /// Wall-clock time now (`CLOCK_REALTIME`), to the millisecond.
    public static var now: Timestamp { Timestamp(millisecondsSince1970: nowMilliseconds()) }

    /// The first millisecond of 1970 UTC.
    public static let epoch = Timestamp(millisecondsSince1970: 0)

    /// `2026-11-30T08:15:00.000Z`.
    public var rfc3339: String { Self.rfc3339(millisecondsSince1970: millisecondsSince1970) }

    /// Appends ``rfc3339`` to `bytes` as UTF-8 without allocating (24 bytes for years 0–9999).
    @inlinable
    public func append(rfc3339To bytes: inout [UInt8]) {
        Self.appendRFC3339(millisecondsSince1970: millisecondsSince1970, to: &bytes)
    }

    public var description: String { rfc3339 }

    @inlinable
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    // MARK: Arithmetic (saturating)

    /// This time moved by `milliseconds` (negative: earlier), saturated at the ends of `Int64`.
    @inlinable
    public func adding(milliseconds: Int64) -> Timestamp {
        let (sum, overflow) = millisecondsSince1970.addingReportingOverflow(milliseconds)
        guard overflow else { return Timestamp(millisecondsSince1970: sum) }
        return Timestamp(millisecondsSince1970: milliseconds < 0 ? .min : .max)
    }

    /// Milliseconds from `earlier` to this time (negative when `earlier` is later), saturated at
    /// the ends of `Int64`.
    @inlinable
    public func milliseconds(since earlier: Timestamp) -> Int64 {
        let (difference, overflow) = millisecondsSince1970.subtractingReportingOverflow(earlier.millisecondsSince1970)
        guard overflow else { return difference }
        return earlier.millisecondsSince1970 < 0 ? .max : .min
    }

    /// `duration` in whole milliseconds (sub-millisecond parts truncated toward zero), saturated
    /// at the ends of `Int64`.
    @inlinable
    public static func milliseconds(of duration: Duration) -> Int64 {
        saturated(exactMilliseconds(of: duration))
    }

    /// The time `duration` later, saturated (exact up to the ends of `Int64`, whatever the duration).
    @inlinable
    public static func + (time: Timestamp, duration: Duration) -> Timestamp {
        Timestamp(millisecondsSince1970: saturated(Int128(time.millisecondsSince1970) + exactMilliseconds(of: duration)))
    }

    /// The time `duration` earlier, saturated.
    @inlinable
    public static func - (time: Timestamp, duration: Duration) -> Timestamp {
        Timestamp(millisecondsSince1970: saturated(Int128(time.millisecondsSince1970) - exactMilliseconds(of: duration)))
    }

    /// `duration` in milliseconds, truncated toward zero; cannot overflow (|seconds| < 2⁶³, so
    /// the product stays below 2⁷³).
    @inlinable
    static func exactMilliseconds(of duration: Duration) -> Int128 {
        let (seconds, attoseconds) = duration.components
        return Int128(seconds) * 1000 + Int128(attoseconds / 1_000_000_000_000_000)
    }

    /// `value` clamped into `Int64`.
    @inlinable
    static func saturated(_ value: Int128) -> Int64 {
        value > Int128(Int64.max) ? .max : value < Int128(Int64.min) ? .min : Int64(value)
    }
}
