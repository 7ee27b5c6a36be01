import Exports
import Foundation
import HTTPServer
import Timeline

/// Where the files shipped with the project are: the web app (`Web/`), `Data/` (the basemap,
/// the demo, the place names) and `docs/` (the OpenAPI document the server serves).
///
/// For each, the first of: `$FOD_WEB` / `$FOD_SHIPPED_DATA` (the first two only);
/// `<share>/<name>` when `--share-dir <share>` or `$FOD_SHARE_DIR` names one; walking up from
/// the binary's own directory (symlinks resolved), `<dir>/<name>` (a source checkout, the binary
/// in `.build/release/`) or `<dir>/share/fod/<name>` (what `make install` lays out:
/// `$PREFIX/bin/fod` and `$PREFIX/share/fod/`); else `./<name>`. A candidate counts only when it
/// holds its marker file, so the installed binary finds its files whatever the working
/// directory. The caller reads the environment and the flag once and passes them in.
struct ShippedFiles {
    /// `--share-dir`, else `$FOD_SHARE_DIR`; nil: found from the binary's location.
    let shareDirectory: String?
    let environment: [String: String]

    init(shareDirectory: String?, environment: [String: String]) {
        self.shareDirectory = shareDirectory ?? environment["FOD_SHARE_DIR"]
        self.environment = environment
    }

    /// `Data/` (the basemap, the demo and place-name files).
    var data: String { directory("Data", marker: "countries-110m.geojson", variable: "FOD_SHIPPED_DATA") }
    /// The web app (`Web/index.html` and its modules).
    var web: String { directory("Web", marker: "index.html", variable: "FOD_WEB") }
    /// `docs/` (`openapi.yaml`).
    var docs: String { directory("docs", marker: "openapi.yaml", variable: nil) }

    private func directory(_ name: String, marker: String, variable: String?) -> String {
        if let variable, let explicit = environment[variable] { return explicit }
        if let shareDirectory { return (shareDirectory as NSString).appendingPathComponent(name) }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            for candidate in [url.appendingPathComponent(name), url.appendingPathComponent("share/fod/\(name)")]
            where FileManager.default.fileExists(atPath: candidate.appendingPathComponent(marker).path) {
                return candidate.path
            }
            url = url.deletingLastPathComponent()
        }
        return "./" + name
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
