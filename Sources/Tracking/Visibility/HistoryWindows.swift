/// The parts of a device's history a reader may see, as closed intervals of fix timestamps
/// (milliseconds since 1970 UTC).
///
/// API.md, "Visibility of history": a device's owner reads all of it; a group member reads it
/// only for the times the device was shared with a group they are both in (from joining, while
/// sharing was on, until leaving). Those are the sharing periods of the device's memberships.
///
/// Invariant: `intervals` are sorted, non-empty, pairwise disjoint and not adjacent (merged).
public struct HistoryWindows: Sendable, Equatable, CustomStringConvertible {
    public private(set) var intervals: [ClosedRange<Int64>]

    /// Everything (the owner's view).
    public static let all = HistoryWindows(normalized: [Int64.min...Int64.max])
    /// Nothing.
    public static let none = HistoryWindows(normalized: [])

    /// Windows covering exactly the union of `intervals` (any order, overlaps allowed).
    public init(_ intervals: [ClosedRange<Int64>]) {
        let sorted = intervals.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int64>] = []
        merged.reserveCapacity(sorted.count)
        for interval in sorted {
            if let last = merged.last, last.upperBound == Int64.max || interval.lowerBound <= last.upperBound + 1 {
                if interval.upperBound > last.upperBound { merged[merged.count - 1] = last.lowerBound...interval.upperBound }
            } else {
                merged.append(interval)
            }
        }
        self.intervals = merged
    }

    private init(normalized: [ClosedRange<Int64>]) { self.intervals = normalized }

    /// Sharing periods as stored: `end == nil` means still open (up to the end of time).
    public init(periods: [(start: Int64, end: Int64?)]) {
        self.init(periods.compactMap { period in
            let end = period.end ?? Int64.max
            return period.start <= end ? period.start...end : nil
        })
    }

    public var isEmpty: Bool { intervals.isEmpty }
    public var isAll: Bool { intervals == [Int64.min...Int64.max] }

    /// Whether a fix timestamped `timestamp` is visible. O(log n).
    public func contains(_ timestamp: Int64) -> Bool {
        intervals.sortedDisjointContains(timestamp)
    }

    /// The windows restricted to [from, to] (nil: unbounded on that side).
    public func clipped(from: Int64?, to: Int64?) -> HistoryWindows {
        let lower = from ?? Int64.min, upper = to ?? Int64.max
        guard lower <= upper else { return .none }
        return HistoryWindows(normalized: intervals.compactMap { interval in
            let start = max(interval.lowerBound, lower), end = min(interval.upperBound, upper)
            return start <= end ? start...end : nil
        })
    }

    /// Visible in either.
    public func union(_ other: HistoryWindows) -> HistoryWindows {
        if isAll || other.isEmpty { return self }
        if other.isAll || isEmpty { return other }
        return HistoryWindows(intervals + other.intervals)
    }

    /// The smallest interval holding every window (nil when empty): for a range scan that
    /// filters with `contains`.
    public var hull: ClosedRange<Int64>? {
        guard let first = intervals.first, let last = intervals.last else { return nil }
        return first.lowerBound...last.upperBound
    }

    public var description: String {
        isAll ? "all" : "[" + intervals.map { "\($0.lowerBound)...\($0.upperBound)" }.joined(separator: ", ") + "]"
    }
}
