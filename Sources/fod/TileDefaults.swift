import Foundation

/// The web map's default street basemap: OpenStreetMap's standard raster tiles, which its tile
/// usage policy lets interactive maps of light use load from the user's browser, with their
/// attribution. `--tile-url none` turns tiles off (the offline outlines and shorelines only).
enum TileDefaults {
    static let url = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    static let attribution = "© OpenStreetMap contributors"

    /// The template and attribution to serve from what the flags said (nil: not given).
    /// `none` (any case) or an empty template means no tiles; another template keeps only the
    /// attribution given with it, since OpenStreetMap's belongs to OpenStreetMap's tiles.
    static func resolve(url given: String?, attribution: String?) -> (url: String?, attribution: String) {
        guard let given else { return (url, attribution ?? Self.attribution) }
        let trimmed = given.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "none" { return (nil, attribution ?? "") }
        return (trimmed, attribution ?? (trimmed == url ? Self.attribution : ""))
    }
}
