import Exports
import Foundation
import HTTPServer
import Timeline

/// Where the files shipped with the project are (`Data/`, `Web/`, `docs/`): `$FOD_SHIPPED_DATA` /
/// `$FOD_WEB` for the first two, else the folder of that name next to the package the binary was
/// built in (found by walking up from the binary), else `./<name>`.
/// The environment is read by the caller (`main.swift` reads it once) and passed in.
enum ShippedFiles {
    static func directory(_ name: String, marker: String, environment: [String: String]) -> String {
        let variable: String? = switch name {
        case "Data": "FOD_SHIPPED_DATA"
        case "Web": "FOD_WEB"
        default: nil
        }
        if let variable, let explicit = environment[variable] { return explicit }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = url.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent(marker).path) { return candidate.path }
            url = url.deletingLastPathComponent()
        }
        return "./" + name
    }

    /// `Data/` (the basemap, the demo and place-name files).
    static func data(_ environment: [String: String]) -> String {
        directory("Data", marker: "countries-110m.geojson", environment: environment)
    }
}

/// The countries basemap for scatter maps (`Data/countries-110m.geojson`).
enum BasemapFile {
    static func load(from dataDirectory: String, logger: Logger) -> Basemap? {
        guard let data = FileManager.default.contents(atPath: dataDirectory + "/countries-110m.geojson") else {
            logger.warning("no basemap at \(dataDirectory)/countries-110m.geojson: exports draw no countries")
            return nil
        }
        do { return try Basemap.parse(Array(data)) } catch {
            logger.warning("basemap unreadable: \(error)")
            return nil
        }
    }
}

/// The nearest-town index that names timeline stays (`Data/places-cities1000.bin`, GeoNames
/// cities1000, CC BY 4.0).
enum TownsFile {
    static func load(from dataDirectory: String, logger: Logger) -> NearestPlace? {
        guard let data = FileManager.default.contents(atPath: dataDirectory + "/places-cities1000.bin") else {
            logger.warning("no \(dataDirectory)/places-cities1000.bin: timeline stays are not named after towns")
            return nil
        }
        do { return try NearestPlace(placesFile: [UInt8](data)) } catch {
            logger.warning("places file unreadable: \(error)")
            return nil
        }
    }
}
