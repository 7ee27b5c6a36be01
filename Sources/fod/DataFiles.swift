import Foundation

/// Where the shipped data (`Data/`: basemap, demo AIS hour) is: `$FOD_SHIPPED_DATA`, else
/// `Data/` next to the package the binary was built in, else `./Data`.
enum DataFiles {
    static func directory() -> String {
        if let explicit = ProcessInfo.processInfo.environment["FOD_SHIPPED_DATA"] { return explicit }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = url.appendingPathComponent("Data")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("countries-110m.geojson").path) {
                return candidate.path
            }
            url = url.deletingLastPathComponent()
        }
        return "./Data"
    }
}
