/// What every export writer does first with a point: nothing once the document is finished,
/// and a point without valid coordinates (`ExportPoint.hasValidCoordinates`) is skipped and
/// counted instead of written. Each writer holds one and reports `skipped` as its
/// `skippedPointCount`.
struct PointAdmission: Sendable {
    /// Points skipped for invalid coordinates so far.
    private(set) var skipped = 0

    /// Whether to write `point`; counts it as skipped when its coordinates are invalid.
    /// - Parameter finished: whether the writer's document is already closed.
    mutating func admits(_ point: ExportPoint, finished: Bool = false) -> Bool {
        guard !finished else { return false }
        guard point.hasValidCoordinates else {
            skipped += 1
            return false
        }
        return true
    }
}
