/// Streams a server-rendered SVG picture of a geospatial scatter chart: basemap outlines,
/// points as small circles coloured per series, and on top a title, a legend (series label and
/// colour) and a scale bar.
///
/// The projection (see `SVGMapFrame`: equirectangular with cos φ0 aspect correction) is fitted
/// to the data's bounding box, which must therefore be given up front — compute it with a cheap
/// pass or an aggregate query (``GeoBoundsAccumulator`` handles the antimeridian). Points
/// outside it are still drawn and clipped by the canvas. With `bounds == nil` the map shows
/// the world. The legend is drawn at the end from the series actually seen, so it always
/// matches the points and sits above them.
///
/// - Points must arrive sorted by (series key, timestamp), as for ``ScatterJSONExport``; each
///   run of a series is one `<g fill="…">` group.
/// - Output is a standalone UTF-8 XML document (`<?xml …?>`, `xmlns`), all text escaped;
///   coordinates have one decimal of a pixel. The legend lists at most
///   `maximumLegendEntries` series, then "+ N more".
/// - Memory: the basemap is written at the start; afterwards only the series list is kept.
/// - Points with invalid coordinates are skipped and counted.
public struct SVGScatterMap: Sendable {
    /// Presentation settings.
    public struct Options: Sendable, Hashable {
        /// The title, top left.
        public var title: String
        /// A smaller line under the title (e.g. the time range), if any.
        public var subtitle: String?
        /// A credit line, bottom right (e.g. "Basemap: Natural Earth"), if any.
        public var attribution: String?
        /// Canvas width in pixels (clamped to 64...8192).
        public var widthPixels: Int
        /// Canvas height in pixels (clamped to 64...8192).
        public var heightPixels: Int
        /// Series listed in the legend before "+ N more" (at least 1).
        public var maximumLegendEntries: Int

        public init(title: String, subtitle: String? = nil, attribution: String? = nil,
                    widthPixels: Int = 960, heightPixels: Int = 540, maximumLegendEntries: Int = 12) {
            self.title = title
            self.subtitle = subtitle
            self.attribution = attribution
            self.widthPixels = widthPixels
            self.heightPixels = heightPixels
            self.maximumLegendEntries = maximumLegendEntries
        }
    }

    /// The field that defines series.
    public let colorField: ScatterColorField
    /// Points drawn so far.
    public private(set) var pointCount = 0
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { points.skipped }
    private var points: ScatterPoints

    let options: Options
    let frame: SVGMapFrame
    private let basemap: Basemap?
    var numbers = DecimalFormatter()
    private var started = false
    private var groupOpen = false
    private var finished = false

    /// Canvas pixels kept free of data around the fitted box (title band on top, scale bar
    /// below).
    static let insets = (top: 64.0, right: 24.0, bottom: 44.0, left: 24.0)

    /// A map fitted to `bounds` (degrees; nil: the world).
    public init(bounds: GeoBounds?, colorField: ScatterColorField, basemap: Basemap? = nil,
                options: Options) {
        var options = options
        options.widthPixels = Swift.min(Swift.max(options.widthPixels, 64), 8192)
        options.heightPixels = Swift.min(Swift.max(options.heightPixels, 64), 8192)
        options.maximumLegendEntries = Swift.max(options.maximumLegendEntries, 1)
        self.options = options
        self.colorField = colorField
        self.basemap = basemap
        points = ScatterPoints(colorField: colorField)
        frame = SVGMapFrame(data: bounds, widthPixels: options.widthPixels,
                            heightPixels: options.heightPixels, insets: Self.insets)
    }

    /// The series seen so far, in order of first appearance.
    public var series: [ScatterSeries] { points.series }

    /// Draws one point.
    public mutating func add(_ point: ExportPoint, into out: inout [UInt8]) {
        guard let (series, startsRun) = points.take(point, finished: finished) else { return }
        beginIfNeeded(into: &out)
        if startsRun {
            if groupOpen { out.append(ascii: "</g>\n") }
            out.append(ascii: "<g fill=\"\(series.color.hex)\">\n")
            groupOpen = true
        }
        out.append(ascii: "<circle cx=\"")
        numbers.append(frame.x(longitude: point.longitude), fractionDigits: 1, to: &out)
        out.append(ascii: "\" cy=\"")
        numbers.append(frame.y(latitude: point.latitude), fractionDigits: 1, to: &out)
        out.append(ascii: "\" r=\"3.5\"/>\n")
        pointCount += 1
    }

    /// Draws the overlays and closes the document. Later calls write nothing.
    public mutating func finish(into out: inout [UInt8]) {
        guard !finished else { return }
        beginIfNeeded(into: &out)
        if groupOpen { out.append(ascii: "</g>\n") }
        out.append(ascii: "</g>\n</g>\n")  // points, clipped map
        if pointCount == 0 {
            writeText("No positions to show", x: frame.widthPixels / 2, y: frame.heightPixels / 2,
                      size: 16, anchor: "middle", into: &out)
        }
        writeTitle(into: &out)
        writeLegend(series: points.series, into: &out)
        writeScaleBar(into: &out)
        writeAttribution(into: &out)
        out.append(ascii: "</svg>\n")
        finished = true
    }

    private mutating func beginIfNeeded(into out: inout [UInt8]) {
        guard !started else { return }
        started = true
        let width = options.widthPixels, height = options.heightPixels
        out.append(ascii: """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">
            <title>
            """)
        XMLText.appendEscaped(options.title, to: &out)
        out.append(ascii: """
            </title>
            <defs><clipPath id="map-clip"><rect width="\(width)" height="\(height)"/></clipPath></defs>
            <rect width="\(width)" height="\(height)" fill="#dbe9f6"/>
            <g clip-path="url(#map-clip)">

            """)
        if let basemap { writeBasemap(basemap, into: &out) }
        out.append(ascii: "<g id=\"points\" stroke=\"#ffffff\" stroke-width=\"0.8\" fill-opacity=\"0.9\">\n")
    }
}
