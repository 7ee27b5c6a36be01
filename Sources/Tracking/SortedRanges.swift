extension Array where Element == ClosedRange<Int64> {
    /// For ranges sorted by bound and pairwise disjoint: whether one of them holds `value`.
    /// A binary search, O(log n).
    func sortedDisjointContains(_ value: Int64) -> Bool {
        var low = 0, high = count
        while low < high {
            let middle = low + (high - low) / 2
            if self[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low].contains(value)
    }
}
