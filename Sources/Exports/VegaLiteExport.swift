import JSONCore
import Timestamps

/// Streams a complete Vega-Lite v5 spec of a geospatial scatter chart with inline data: the
/// sea (the sphere) and the country outlines as `geoshape` layers and the points as a `circle`
/// layer coloured per series, with a legend and tooltips.
///
///     {"$schema":"https://vega.github.io/schema/vega-lite/v5.json","title":…,"width":…,"height":…,
///      "layer":[
///        {"data":{"sphere":true},"mark":{"type":"geoshape","fill":"#dbe9f6","clip":true}},
///        {"data":{"values":<basemap FeatureCollection>,"format":{"type":"json","property":"features"}},
///         "mark":{"type":"geoshape",…}},
///        {"data":{"values":[{"lon":…,"lat":…,"timestamp":"…","device":"…","user":"…","color":"…"},…]},
///         "mark":{"type":"circle",…},
///         "encoding":{"longitude":…,"latitude":…,
///                     "color":{"field":"color","type":"nominal","scale":{"domain":[labels],"range":[colours]},
///                              "legend":{"title":"Device"}},
///                     "tooltip":[device, user, time]}}],
///      "projection":{"type":"equalEarth","rotate":[-λ0,0,0],"fit":<MultiPoint feature>}}
///
/// - Each value's `color` is the series *label* (``ScatterSeries/label``), the value of the colour
///   channel; the scale maps labels to the palette colours, so colours match the other scatter
///   formats.
/// - The projection is fitted to the data: `fit` is a MultiPoint around the data's bounding box
///   (grown by 5%, at least 0.02°), and `rotate` centres the box's middle meridian so data
///   across the antimeridian is not torn apart. Without points the projection fits the outlines.
/// - Members known only at the end (`encoding`'s scale, `projection`) come after the data; JSON
///   member order carries no meaning. The basemap bytes are embedded verbatim (``Basemap``
///   guarantees they are a valid FeatureCollection).
/// - Points must arrive sorted by (series key, timestamp), as for ``ScatterJSONExport``.
///   Points with invalid coordinates are skipped and counted. Memory grows with the number of
///   series, not points.
public struct VegaLiteExport: Sendable, JSONDocumentWriter {
    /// The projection type.
    public enum Projection: String, Sendable, Hashable {
        /// Equal-area, good for the world and continents (Vega-Lite's default).
        case equalEarth
        /// Conformal, familiar from web maps; good for cities and regions.
        case mercator
    }

    /// Presentation settings.
    public struct Options: Sendable, Hashable {
        /// The chart title, if any.
        public var title: String?
        /// Plot width in pixels (clamped to 64...8192).
        public var widthPixels: Int
        /// Plot height in pixels (clamped to 64...8192).
        public var heightPixels: Int
        /// The projection type.
        public var projection: Projection

        public init(title: String? = nil, widthPixels: Int = 800, heightPixels: Int = 450,
                    projection: Projection = .equalEarth) {
            self.title = title
            self.widthPixels = widthPixels
            self.heightPixels = heightPixels
            self.projection = projection
        }
    }

    /// The field that defines series.
    public let colorField: ScatterColorField
    /// Points ignored because their coordinates were invalid.
    public var skippedPointCount: Int { points.skipped }
    private var points: ScatterPoints

    private let options: Options
    private let basemap: Basemap?
    var json = JSONWriter(capacity: 0)
    var phase = JSONDocumentPhase.notStarted

    /// A writer; without a basemap the spec has only the sea and the circle layers.
    public init(colorField: ScatterColorField, basemap: Basemap? = nil, options: Options = Options()) {
        self.colorField = colorField
        self.basemap = basemap
        self.options = options
        points = ScatterPoints(colorField: colorField)
    }

    /// The series seen so far, in order of first appearance.
    public var series: [ScatterSeries] { points.series }

    /// The bounding box of the points written so far, or nil.
    public var bounds: GeoBounds? { points.bounds }

    /// Writes one data value.
    public mutating func add(_ point: ExportPoint, into out: inout [UInt8]) {
        guard let series = points.take(point, finished: phase == .finished)?.series else { return }
        writingDocument(into: &out) { $0.write(point, series: series) }
    }

    /// Writes the marks, encodings and projection and closes the spec. Later calls write nothing.
    public mutating func finish(into out: inout [UInt8]) {
        finishDocument(into: &out) { $0.close() }
    }

    private mutating func write(_ point: ExportPoint, series: ScatterSeries) {
        json.beginObject()
        json.key("lon"); json.number(point.longitude, fractionDigits: 7)
        json.key("lat"); json.number(point.latitude, fractionDigits: 7)
        json.key("timestamp"); json.string(Timestamp.rfc3339(millisecondsSince1970: point.timestamp))
        json.key("device"); json.string(point.deviceName)
        json.key("user"); json.string(point.displayName)
        json.key("color"); json.string(series.label)
        json.endObject()
    }

    private mutating func close() {
        json.endArray()  // values
        json.endObject()  // data
        json.key("mark")
        json.beginObject()
        json.key("type"); json.string("circle")
        json.key("size"); json.number(36)
        json.key("opacity"); json.number(0.85)
        json.key("stroke"); json.string("#ffffff")
        json.key("strokeWidth"); json.number(0.5)
        json.key("clip"); json.bool(true)
        json.endObject()
        writeEncoding()
        json.endObject()  // circle layer
        json.endArray()  // layer
        writeProjection()
        json.endObject()
    }

    mutating func open() {
        json.beginObject()
        json.key("$schema"); json.string("https://vega.github.io/schema/vega-lite/v5.json")
        if let title = options.title {
            json.key("title"); json.string(title)
        }
        json.key("description"); json.string("Positions coloured by \(colorField.rawValue)")
        json.key("width"); json.number(Swift.min(Swift.max(options.widthPixels, 64), 8192))
        json.key("height"); json.number(Swift.min(Swift.max(options.heightPixels, 64), 8192))
        json.key("layer")
        json.beginArray()
        // The sea: the whole sphere as a geoshape, clipped to the view.
        json.beginObject()
        json.key("data"); json.beginObject()
        json.key("sphere"); json.bool(true)
        json.endObject()
        json.key("mark"); json.beginObject()
        json.key("type"); json.string("geoshape")
        json.key("fill"); json.string("#dbe9f6")
        json.key("clip"); json.bool(true)
        json.endObject()
        json.endObject()
        if let basemap {
            // The writer cannot carry raw JSON, so this layer is appended as bytes. It follows
            // the sphere layer, hence the leading comma; the writer adds the comma after it.
            json.bytes.append(ascii: #",{"data":{"values":"#)
            json.bytes.append(contentsOf: basemap.featureCollectionJSON)
            json.bytes.append(ascii: #","format":{"type":"json","property":"features"}},"#)
            json.bytes.append(ascii: ##""mark":{"type":"geoshape","fill":"#f2efe9","stroke":"#b5b0a6","##)
            json.bytes.append(ascii: ##""strokeWidth":0.5,"clip":true}}"##)
        }
        json.beginObject()
        json.key("data")
        json.beginObject()
        json.key("values")
        json.beginArray()
    }

    private mutating func writeEncoding() {
        json.key("encoding")
        json.beginObject()
        json.key("longitude"); json.beginObject()
        json.key("field"); json.string("lon")
        json.key("type"); json.string("quantitative")
        json.endObject()
        json.key("latitude"); json.beginObject()
        json.key("field"); json.string("lat")
        json.key("type"); json.string("quantitative")
        json.endObject()
        json.key("color"); json.beginObject()
        json.key("field"); json.string("color")
        json.key("type"); json.string("nominal")
        json.key("title"); json.string(colorField.legendTitle)
        if !points.series.isEmpty {
            json.key("scale"); json.beginObject()
            json.key("domain"); json.beginArray()
            for series in points.series { json.string(series.label) }
            json.endArray()
            json.key("range"); json.beginArray()
            for series in points.series { json.string(series.color.hex) }
            json.endArray()
            json.endObject()
        }
        json.key("legend")
        if points.series.isEmpty {
            json.null()  // no entries: no empty legend box
        } else {
            json.beginObject()
            json.key("title"); json.string(colorField.legendTitle)
            json.endObject()
        }
        json.endObject()
        json.key("tooltip"); json.beginArray()
        for (field, title) in [("device", "Device"), ("user", "User"), ("timestamp", "Time (UTC)")] {
            json.beginObject()
            json.key("field"); json.string(field)
            json.key("type"); json.string("nominal")
            json.key("title"); json.string(title)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    private mutating func writeProjection() {
        json.key("projection")
        json.beginObject()
        json.key("type"); json.string(options.projection.rawValue)
        if let data = points.bounds {
            let view = data.expanded(byFraction: 0.05, minimumSpanDegrees: 0.02)
            // Mercator sends the poles to infinity; fit it to at most ±85°.
            let latitudeLimit = options.projection == .mercator ? 85.0 : 90.0
            json.key("rotate"); json.beginArray()
            json.number(-view.centerLongitudeDegrees, fractionDigits: 7)
            json.number(0)
            json.number(0)
            json.endArray()
            json.key("fit"); json.beginObject()
            json.key("type"); json.string("Feature")
            json.key("properties"); json.beginObject(); json.endObject()
            json.key("geometry"); json.beginObject()
            json.key("type"); json.string("MultiPoint")
            json.key("coordinates"); json.beginArray()
            for lonStep in 0...2 {
                let lon = GeoBounds.wrap(view.westDegrees + view.longitudeSpanDegrees * Double(lonStep) / 2)
                for lat in [view.southDegrees, view.centerLatitudeDegrees, view.northDegrees] {
                    let lat = Swift.min(Swift.max(lat, -latitudeLimit), latitudeLimit)
                    json.beginArray()
                    json.number(lon, fractionDigits: 7)
                    json.number(lat, fractionDigits: 7)
                    json.endArray()
                }
            }
            json.endArray()
            json.endObject()
            json.endObject()
        }
        json.endObject()
    }
}
