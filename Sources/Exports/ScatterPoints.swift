/// What every scatter writer (JSON, CSV, Vega-Lite, SVG) keeps of the points streaming in: the
/// points skipped for invalid coordinates, the series the others form (in order of first
/// appearance) and the bounds of those taken. Memory grows with the number of series, not points.
struct ScatterPoints: Sendable {
    private var admission = PointAdmission()
    private var tracker: ScatterSeriesTracker
    private var accumulator = GeoBoundsAccumulator()

    init(colorField: ScatterColorField) {
        tracker = ScatterSeriesTracker(field: colorField)
    }

    /// Points skipped so far because their coordinates were invalid.
    var skipped: Int { admission.skipped }

    /// The series seen so far, in order of first appearance.
    var series: [ScatterSeries] { tracker.series }

    /// The bounding box of the points taken so far, or nil.
    var bounds: GeoBounds? { accumulator.bounds }

    /// Takes `point` into its series and the bounds: its series, and whether it starts a run of
    /// that series. Nil when the writer is `finished`, or for invalid coordinates (counted in
    /// `skipped`).
    mutating func take(_ point: ExportPoint, finished: Bool) -> (series: ScatterSeries, startsRun: Bool)? {
        guard admission.admits(point, finished: finished) else { return nil }
        let (index, startsRun) = tracker.observe(point)
        accumulator.add(longitudeDegrees: point.longitude, latitudeDegrees: point.latitude)
        return (tracker.series[index], startsRun)
    }
}
