import Foundation

/// Where the files shipped with the project are (`Data/`, `Web/`): `$FOD_SHIPPED_DATA` /
/// `$FOD_WEB`, else the folder of that name next to the package the binary was built in (found
/// by walking up from the binary), else `./<name>`.
enum ShippedFiles {
    static func directory(_ name: String, marker: String) -> String {
        let variable = name == "Data" ? "FOD_SHIPPED_DATA" : "FOD_WEB"
        if let explicit = ProcessInfo.processInfo.environment[variable] { return explicit }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = url.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent(marker).path) { return candidate.path }
            url = url.deletingLastPathComponent()
        }
        return "./" + name
    }
}
