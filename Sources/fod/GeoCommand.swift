import GeoKit
import GeoQuery
import JSONCore

/// `fod geo cell <lon> <lat> [--level N]` and `fod geo cover '<GeoJSON or geo operator>' [--max-cells N]
/// [--max-level N]`: the cell ids and coverings the index uses, for people debugging data.
enum GeoCommand {
    static func run(_ arguments: Arguments) throws -> Int32 {
        try arguments.rejectUnknown(["level", "max-cells", "max-level", "min-level"])
        let rest = Array(arguments.positionals.dropFirst())
        switch rest.first {
        case "cell":
            guard rest.count == 3, let lon = Double(rest[1]), let lat = Double(rest[2]) else {
                throw UsageError("usage: fod geo cell <lon> <lat> [--level N]")
            }
            guard abs(lon) <= 180, abs(lat) <= 90 else {
                throw UsageError("longitude/latitude is out of bounds, lng: \(GeneralNumberFormat.format(lon)) lat: \(GeneralNumberFormat.format(lat))")
            }
            let level = try arguments.int("level") ?? 30
            guard (0...30).contains(level) else { throw UsageError("--level must be 0–30") }
            let id = CellID(LatLng(degreesLatitude: lat, longitude: lon)).parent(level: level)
            print(describe(id))
            return 0
        case "cover":
            guard rest.count == 2 else { throw UsageError("usage: fod geo cover '<GeoJSON geometry or {\"$geoWithin\": …}>' [--max-cells N] [--max-level N]") }
            let value = try JSONParser.parse(Array(rest[1].utf8))
            let filter: GeoFilter
            if let object = value.objectValue, object.keys.contains(where: { $0.hasPrefix("$") }) {
                filter = try GeoFilter.parse(value)
            } else {
                filter = try GeoFilter.parse(["$geoIntersects": ["$geometry": value]])
            }
            let coverer = RegionCoverer(minLevel: try arguments.int("min-level") ?? 2, maxLevel: try arguments.int("max-level") ?? 16,
                                        levelMod: 1, maxCells: try arguments.int("max-cells") ?? 8)
            let covering = coverer.covering(of: filter.region)
            print("\(covering.count) cells (\(coverer)):")
            for id in covering { print("  " + describe(id)) }
            let ranges = RegionCoverer.ranges(of: covering)
            print("\(ranges.count) signed Int64 key ranges:")
            for range in ranges { print("  [\(range.lowerBound), \(range.upperBound)]") }
            return 0
        default:
            throw UsageError("usage: fod geo cell <lon> <lat> [--level N] | fod geo cover '<GeoJSON>' [--max-cells N]")
        }
    }

    static func describe(_ id: CellID) -> String {
        let hex = String(id.id, radix: 16)
        let center = id.toLatLng()
        return "level \(id.level)  hex \(String(repeating: "0", count: 16 - hex.count) + hex)  token \(id.token)  int64 \(id.int64Key)"
            + "  face \(id.face)  centre [\(GeneralNumberFormat.format(center.lng.degrees, significantDigits: 9)), \(GeneralNumberFormat.format(center.lat.degrees, significantDigits: 9))]"
    }
}
