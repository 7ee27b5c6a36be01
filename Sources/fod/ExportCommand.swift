import API
import Foundation
import HTTPServer
import SQLiteStore
import Tracking

/// `fod export <endpoint> <id> --as <email> [query options] [--out <file>]`: the export
/// endpoints from the command line against the data directory, with that user's rights.
///   fod export group-geojson <groupId> --as ann@example.org [--tracks] [--from T] [--to T] [--gap MIN] [--simplify M]
///   fod export scatter <groupId> --as … [--format json|csv|vega-lite|svg] [--color device|user]
///   fod export device-geojson|device-gpx|device-ndjson <deviceId> --as …
///   fod export group-ndjson <groupId> --as …
enum ExportCommand {
    static let endpoints: [String: ExportRoutes.Endpoint] = [
        "group-geojson": .groupGeoJSON, "device-geojson": .deviceGeoJSON, "device-gpx": .deviceGPX, "scatter": .groupScatter,
        "device-ndjson": .deviceNDJSON, "group-ndjson": .groupNDJSON,
    ]
    static let usage = "usage: fod export group-geojson|group-ndjson|scatter <groupId> | device-geojson|device-gpx|device-ndjson <deviceId> --as <email> [--out <file>] [--data <dir>] [--tracks] [--from T] [--to T] [--gap MIN] [--simplify M] [--within GEOJSON] [--format F] [--color device|user]"

    static func run(_ arguments: Arguments, environment: [String: String]) async throws -> Int32 {
        try arguments.rejectUnknown(["data", "as", "out", "from", "to", "gap", "simplify", "within", "format", "color", "tracks", "share-dir"])
        let rest = Array(arguments.positionals.dropFirst())
        guard rest.count == 2, let endpoint = endpoints[rest[0]], let email = arguments.options["as"] else { throw UsageError(usage) }
        let directory = arguments.options["data"] ?? environment["FOD_DATA"] ?? "./fod-data"
        // Opening the store runs its migrations and index merger (writes): not beside a server.
        let dataLock = try DataDirectoryLock.acquire(directory, for: "fod export",
                                                     advice: "stop it first, or use the export endpoints over HTTP")
        defer { withExtendedLifetime(dataLock) {} }
        let backend = try SQLiteBackend.open(directory: directory)
        defer { backend.close() }
        let logger = Logger(level: .warning)
        var configuration = Services.Configuration()
        configuration.accounts.passwordCost = .minimal
        let services = try Services(store: backend, configuration: configuration, logger: logger)
        guard let user = try services.accounts.user(email: email) else { throw UsageError("no account \(email) in \(directory)") }
        var query = ["from", "to", "gap", "simplify", "within", "format", "color"].compactMap { name in
            arguments.options[name].map { (name: name, value: $0) }
        }
        if arguments.flags.contains("tracks") || arguments.options["tracks"] == "true" { query.append(("tracks", "true")) }
        let request = Request(method: "GET", path: endpoint.rawValue, queryItems: query)
        let routes = ExportRoutes(services: services, basemap: BasemapFile.load(from: ShippedFiles(shareDirectory: arguments.options["share-dir"], environment: environment).data, logger: logger))
        let prepared = try routes.prepare(endpoint, id: rest[1], query: request, credential: .user(userID: user.id))
        let out: FileHandle
        if let path = arguments.options["out"] {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw UsageError("cannot write \(path)")
            }
            out = handle
        } else {
            out = FileHandle.standardOutput
        }
        let progress = ProgressBar(total: max(prepared.expectedRows, 1))
        let large = prepared.expectedRows >= 10_000
        var bytes = 0
        try prepared.stream.drain { chunk in
            try out.write(contentsOf: chunk)
            bytes += chunk.count
            if large { progress.update(min(prepared.rowsRead, prepared.expectedRows)) }
        }
        if large { progress.finish() }
        if arguments.options["out"] != nil {
            try out.close()
            FileHandle.standardError.write(Data("exported \(prepared.rowsRead) position(s), \(bytes) bytes (\(prepared.contentType)) to \(arguments.options["out"]!)\n".utf8))
        }
        return 0
    }
}
