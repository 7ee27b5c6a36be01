/// A bound on the work one attempt at a request may do, counted in index operations (a row
/// read or a B-tree seek, about a microsecond each). Past it the attempt stops with
/// `WorkBudget.Exceeded`, and the caller runs the request again without a bound somewhere
/// waiting holds no shared thread (see `Handler.adaptive` in HTTPServer).
///
/// Invariant: `units > 0`. Whether an attempt exceeds its budget may depend on rows the caller
/// cannot read (other groups' fixes in the same cells); it changes only where the answer is
/// computed, never the answer.
public struct WorkBudget: Sendable, Equatable {
    /// Index operations allowed (≥ 1).
    public let units: Int

    public init(units: Int) {
        self.units = max(1, units)
    }

    /// Thrown by the operation that would go past the budget.
    public struct Exceeded: Error, Equatable {
        public init() {}
    }
}
