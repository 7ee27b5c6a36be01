/// Which field colours a scatter export, like the "Color" channel of a MongoDB Charts
/// geospatial scatter: one series (and one colour) per device or per user.
public enum ScatterColorField: String, Sendable, Hashable, CaseIterable {
    /// One series per device: key `deviceID`, name `deviceName`.
    case device
    /// One series per user: key `userID`, name `displayName`.
    case user

    /// The series key of a point (an id: stable, unique).
    public func seriesKey(of point: ExportPoint) -> String {
        switch self {
        case .device: point.deviceID
        case .user: point.userID
        }
    }

    /// The series name of a point (for people: may repeat, may be empty).
    public func seriesName(of point: ExportPoint) -> String {
        switch self {
        case .device: point.deviceName
        case .user: point.displayName
        }
    }

    /// A legend title: `Device` or `User`.
    public var legendTitle: String {
        switch self {
        case .device: "Device"
        case .user: "User"
        }
    }
}

/// One series of a scatter export, as the writers discovered it.
public struct ScatterSeries: Sendable, Hashable {
    /// The series key (device or user id).
    public let key: String
    /// The name from the first point of the series (device name or display name).
    public let name: String
    /// A name unique within the export, for legends and colour scales: `name`, or
    /// `name (key)` when an earlier series already uses that name, or the key when the name is
    /// empty.
    public let label: String
    /// The series colour (see ``ScatterPalette``).
    public let color: ScatterColor
    /// Points written for the series.
    public internal(set) var pointCount: Int
}

/// Tracks series across a key-sorted point stream: assigns colours and unique labels on first
/// sight and reports where a new run of points begins. Memory grows with the number of series,
/// not points.
struct ScatterSeriesTracker: Sendable {
    let field: ScatterColorField
    /// Series in order of first appearance.
    private(set) var series: [ScatterSeries] = []
    private var indexByKey: [String: Int] = [:]
    private var usedLabels: Set<String> = []
    private var assigner = ScatterPalette.Assigner()
    private var currentIndex: Int?

    init(field: ScatterColorField) {
        self.field = field
    }

    /// Registers a point: returns its series' index in ``series`` and whether it starts a new run
    /// (its key differs from the previous point's).
    mutating func observe(_ point: ExportPoint) -> (index: Int, startsRun: Bool) {
        let key = field.seriesKey(of: point)
        if let currentIndex, series[currentIndex].key == key {
            series[currentIndex].pointCount += 1
            return (currentIndex, false)
        }
        let index: Int
        if let known = indexByKey[key] {
            index = known
        } else {
            index = series.count
            let name = field.seriesName(of: point)
            series.append(ScatterSeries(key: key, name: name, label: uniqueLabel(name: name, key: key),
                                        color: assigner.color(forKey: key), pointCount: 0))
            indexByKey[key] = index
        }
        series[index].pointCount += 1
        currentIndex = index
        return (index, true)
    }

    private mutating func uniqueLabel(name: String, key: String) -> String {
        var label = name.isEmpty ? key : name
        if usedLabels.contains(label) { label = "\(label) (\(key))" }
        let base = label
        var counter = 2
        while usedLabels.contains(label) {
            label = "\(base) \(counter)"
            counter += 1
        }
        usedLabels.insert(label)
        return label
    }
}
