#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Drawing of the basemap and the overlays (title, legend, scale bar, credit).
extension SVGScatterMap {
    static let textColor = "#1f2933"
    static let mutedTextColor = "#52606d"
    private static let panel = "fill=\"#ffffff\" fill-opacity=\"0.85\" stroke=\"#c5ccd3\" stroke-width=\"0.5\" rx=\"4\""

    /// Draws every polygon that reaches the canvas, shifted by ±360° where that brings it into
    /// view (so outlines continue across the antimeridian). Rings are drawn whole; points closer
    /// than 0.1 px are merged and rings that shrink below 3 points are left out.
    mutating func writeBasemap(_ basemap: Basemap, into out: inout [UInt8]) {
        let longitudes = frame.visibleLongitudes
        let latitudes = frame.visibleLatitudes
        out.append(ascii: "<g id=\"basemap\" fill=\"#f2efe9\" stroke=\"#b5b0a6\" stroke-width=\"0.6\" stroke-linejoin=\"round\">\n")
        for polygon in basemap.polygons where polygon.latitudeRange.overlaps(latitudes) {
            for shift in [-360.0, 0, 360] {
                let shifted = (polygon.longitudeRange.lowerBound + shift)...(polygon.longitudeRange.upperBound + shift)
                guard shifted.overlaps(longitudes) else { continue }
                writePolygon(polygon, shift: shift, into: &out)
            }
        }
        out.append(ascii: "</g>\n")
    }

    private mutating func writePolygon(_ polygon: Basemap.Polygon, shift: Double, into out: inout [UInt8]) {
        var path: [UInt8] = []
        var ringPixels: [(x: Int64, y: Int64)] = []
        for ring in polygon.rings {
            ringPixels.removeAll(keepingCapacity: true)
            for position in ring {
                let pixel = (x: Self.decipixels(frame.x(unwrappedLongitude: position.longitude + shift)),
                             y: Self.decipixels(frame.y(latitude: position.latitude)))
                if let last = ringPixels.last, last == pixel { continue }
                ringPixels.append(pixel)
            }
            guard ringPixels.count >= 3 else { continue }
            for (index, pixel) in ringPixels.enumerated() {
                path.append(index == 0 ? UInt8(ascii: "M") : UInt8(ascii: "L"))
                numbers.append(Double(pixel.x) / 10, fractionDigits: 1, to: &path)
                path.append(UInt8(ascii: " "))
                numbers.append(Double(pixel.y) / 10, fractionDigits: 1, to: &path)
            }
            path.append(UInt8(ascii: "Z"))
        }
        guard !path.isEmpty else { return }
        out.append(ascii: "<path fill-rule=\"evenodd\" d=\"")
        out.append(contentsOf: path)
        out.append(ascii: "\"/>\n")
    }

    /// A pixel coordinate in tenths of a pixel, clamped so the conversion never traps.
    private static func decipixels(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(round(Swift.min(Swift.max(value, -1e12), 1e12) * 10))
    }

    /// Title and subtitle on a panel, top left.
    mutating func writeTitle(into out: inout [UInt8]) {
        let title = XMLText.truncated(options.title, limit: 80)
        let subtitle = options.subtitle.map { XMLText.truncated($0, limit: 110) }
        let width = Swift.max(Self.textWidth(title, size: 18), subtitle.map { Self.textWidth($0, size: 12) } ?? 0) + 26
        writePanel(x: 8, y: 8, width: width, height: subtitle == nil ? 34 : 52, into: &out)
        writeText(title, x: 18, y: 31, size: 18, weight: "600", into: &out)
        if let subtitle {
            writeText(subtitle, x: 18, y: 50, size: 12, color: Self.mutedTextColor, into: &out)
        }
    }

    /// The legend panel, top right: the colour field's name, then one row per series.
    mutating func writeLegend(series: [ScatterSeries], into out: inout [UInt8]) {
        guard !series.isEmpty else { return }
        let shown = series.prefix(options.maximumLegendEntries)
        let hidden = series.count - shown.count
        let labels = shown.map { XMLText.truncated($0.label, limit: 28) }
        let moreLine = hidden > 0 ? "+ \(hidden) more" : nil
        var textWidth = Self.textWidth(colorField.legendTitle, size: 12)
        for label in labels + (moreLine.map { [$0] } ?? []) {
            textWidth = Swift.max(textWidth, Self.textWidth(label, size: 12))
        }
        let rowHeight = 18.0
        let rows = Double(labels.count + (moreLine == nil ? 0 : 1))
        let width = textWidth + 46
        let x = frame.widthPixels - width - 8
        writePanel(x: x, y: 8, width: width, height: 30 + rows * rowHeight, into: &out)
        writeText(colorField.legendTitle, x: x + 12, y: 26, size: 12, weight: "600", into: &out)
        var y = 26 + rowHeight
        for (entry, label) in zip(shown, labels) {
            out.append(ascii: "<circle cx=\"")
            numbers.append(x + 17, fractionDigits: 1, to: &out)
            out.append(ascii: "\" cy=\"")
            numbers.append(y - 4, fractionDigits: 1, to: &out)
            out.append(ascii: "\" r=\"5\" fill=\"\(entry.color.hex)\" stroke=\"#ffffff\" stroke-width=\"0.8\"/>\n")
            writeText(label, x: x + 28, y: y, size: 12, into: &out)
            y += rowHeight
        }
        if let moreLine {
            writeText(moreLine, x: x + 28, y: y, size: 12, color: Self.mutedTextColor, into: &out)
        }
    }

    /// A scale bar, bottom left: a round distance (1, 2 or 5 × 10^k m) valid at the centre
    /// latitude, labelled `0` and e.g. `10 km`.
    mutating func writeScaleBar(into out: inout [UInt8]) {
        let bar = frame.scaleBar(maximumPixels: Swift.min(frame.widthPixels * 0.25, 240))
        guard bar.pixels.isFinite, bar.pixels >= 1 else { return }
        let label = scaleLabel(meters: bar.meters)
        let left = 20.0, baseline = frame.heightPixels - 14
        let width = bar.pixels + Self.textWidth(label, size: 11) / 2 + 24
        writePanel(x: 8, y: frame.heightPixels - 40, width: width, height: 32, into: &out)
        out.append(ascii: "<path fill=\"none\" stroke=\"\(Self.textColor)\" stroke-width=\"1.5\" d=\"M")
        numbers.append(left, fractionDigits: 1, to: &out)
        out.append(UInt8(ascii: " "))
        numbers.append(baseline - 5, fractionDigits: 1, to: &out)
        out.append(ascii: "v5h")
        numbers.append(bar.pixels, fractionDigits: 1, to: &out)
        out.append(ascii: "v-5\"/>\n")
        writeText("0", x: left, y: baseline - 9, size: 11, anchor: "middle", into: &out)
        writeText(label, x: left + bar.pixels, y: baseline - 9, size: 11, anchor: "middle", into: &out)
    }

    /// The credit line, bottom right, when set.
    mutating func writeAttribution(into out: inout [UInt8]) {
        guard let attribution = options.attribution.map({ XMLText.truncated($0, limit: 100) }) else { return }
        let width = Self.textWidth(attribution, size: 10) + 12
        writePanel(x: frame.widthPixels - width - 8, y: frame.heightPixels - 24, width: width, height: 16, into: &out)
        writeText(attribution, x: frame.widthPixels - 14, y: frame.heightPixels - 12, size: 10,
                  anchor: "end", color: Self.mutedTextColor, into: &out)
    }

    /// `500 m`, `2 km`, `1000 km`.
    private mutating func scaleLabel(meters: Double) -> String {
        var text: [UInt8] = []
        if meters >= 1000 {
            numbers.append(meters / 1000, fractionDigits: 3, to: &text)
            text.append(ascii: " km")
        } else {
            numbers.append(meters, fractionDigits: 2, to: &text)
            text.append(ascii: " m")
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// One `<text>` element with escaped content.
    mutating func writeText(_ text: String, x: Double, y: Double, size: Int, anchor: String = "start",
                            weight: String? = nil, color: String = SVGScatterMap.textColor,
                            into out: inout [UInt8]) {
        out.append(ascii: "<text x=\"")
        numbers.append(x, fractionDigits: 1, to: &out)
        out.append(ascii: "\" y=\"")
        numbers.append(y, fractionDigits: 1, to: &out)
        out.append(ascii: "\" font-size=\"\(size)\" fill=\"\(color)\"")
        if anchor != "start" { out.append(ascii: " text-anchor=\"\(anchor)\"") }
        if let weight { out.append(ascii: " font-weight=\"\(weight)\"") }
        out.append(UInt8(ascii: ">"))
        XMLText.appendEscaped(text, to: &out)
        out.append(ascii: "</text>\n")
    }

    private mutating func writePanel(x: Double, y: Double, width: Double, height: Double, into out: inout [UInt8]) {
        out.append(ascii: "<rect x=\"")
        numbers.append(x, fractionDigits: 1, to: &out)
        out.append(ascii: "\" y=\"")
        numbers.append(y, fractionDigits: 1, to: &out)
        out.append(ascii: "\" width=\"")
        numbers.append(width, fractionDigits: 1, to: &out)
        out.append(ascii: "\" height=\"")
        numbers.append(height, fractionDigits: 1, to: &out)
        out.append(ascii: "\" \(Self.panel)/>\n")
    }

    /// A rough width in pixels of `text` in a sans-serif font of `size` pixels (0.62 em a
    /// character, generous for capitals), enough to size panels.
    private static func textWidth(_ text: String, size: Double) -> Double {
        Double(text.count) * size * 0.62
    }
}
