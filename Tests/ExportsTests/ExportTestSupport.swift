import Exports
import Foundation
import ProcessTestSupport
import JSONCore
import Testing
import Timestamps

/// Shared helpers for the Exports tests.
enum ExportTestSupport {
    /// 2026-11-30T08:00:00.000Z in ms since 1970.
    static let baseTime: Int64 = 1_796_025_600_000

    /// A fix of `device` (user and names derived from it) at `minutes` after `baseTime`.
    static func fix(
        _ device: String, lon: Double, lat: Double, minutes: Double = 0, altitude: Double? = nil,
        name: String? = nil, user: String? = nil, userName: String? = nil
    ) -> ExportPoint {
        ExportPoint(
            deviceID: device, deviceName: name ?? "Phone \(device)",
            userID: user ?? "u_\(device)", displayName: userName ?? "User \(device)",
            longitude: lon, latitude: lat,
            timestamp: baseTime + Int64(minutes * 60_000), altitude: altitude)
    }

    /// Parses JSON output, recording a test issue (and returning null) when it is invalid.
    static func parseJSON(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
        do {
            return try JSONParser.parse(bytes, limits: JSONParser.Limits(maxDepth: 128))
        } catch {
            Issue.record("invalid JSON: \(error)\n\(String(decoding: bytes.prefix(2000), as: UTF8.self))",
                         sourceLocation: sourceLocation)
            return .null
        }
    }

    /// The times of every fix a GeoJSON export wrote: those of track vertices (`coordTimes`,
    /// nulls left out) and those of `fix` Points.
    static func exportedFixes(_ document: JSONValue) -> [String] {
        var times: [String] = []
        func collect(_ value: JSONValue?) {
            switch value {
            case .array(let items)?: items.forEach { collect($0) }
            case .string(let text)?: times.append(text)
            default: break
            }
        }
        for feature in document["features"]?.arrayValue ?? [] {
            switch feature["properties"]?["kind"]?.stringValue {
            case "track": collect(feature["properties"]?["coordTimes"])
            case "fix": collect(feature["properties"]?["timestamp"])
            default: break
            }
        }
        return times
    }

    /// The RFC 3339 text of a time in ms.
    static func timeText(_ ms: Int64) -> String { Timestamp.rfc3339(millisecondsSince1970: ms) }

    /// `[lon, lat]` of a JSON position.
    static func position(_ value: JSONValue?) -> (lon: Double, lat: Double)? {
        guard let lon = value?[0]?.doubleValue, let lat = value?[1]?.doubleValue else { return nil }
        return (lon, lat)
    }

    /// The package root (where `Data/` lives), found from this file's path.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The shipped Natural Earth countries, as bytes.
    static func countriesGeoJSON() throws -> [UInt8] {
        let url = packageRoot.appendingPathComponent("Data/countries-110m.geojson")
        return Array(try Data(contentsOf: url))
    }

    /// The path of xmllint (libxml2-utils), which the XML tests require.
    static let xmllintPath = "/usr/bin/xmllint"

    /// Runs `xmllint --noout` on the document; returns its exit status and diagnostics.
    static func xmllint(_ document: [UInt8], extraArguments: [String] = []) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("fod-export-\(UUID().uuidString).xml")
        try Data(document).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try runToCompletion(xmllintPath, ["--noout"] + extraArguments + [file.path], limitSeconds: 120)
    }

    /// Every position array (innermost `[number, number(, number)]`) under a JSON value.
    static func allPositions(in value: JSONValue) -> [[Double]] {
        guard case .array(let elements) = value else { return [] }
        if !elements.isEmpty, elements.allSatisfy({ $0.doubleValue != nil }) {
            return [elements.compactMap(\.doubleValue)]
        }
        return elements.flatMap(allPositions)
    }

    /// Every object key anywhere in a JSON value.
    static func allKeys(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            return object.keys + object.values.flatMap(allKeys)
        case .array(let elements):
            return elements.flatMap(allKeys)
        default:
            return []
        }
    }
}
