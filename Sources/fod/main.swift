import Foundation

let usage = """
    fod — Find Our Devices, a self-hosted location server

    Usage:
      fod serve [options]          run the HTTP server (see `fod serve --help`)
      fod demo [serve options] [--speed <x>]
                                   serve with a demo group of 295 real vessels (New York Harbor
                                   AIS, Data/) replayed live, x times faster (default 10);
                                   sign-up open to anyone unless --signup says otherwise
      fod user add <email> [--name <name>] [--admin] [--password-stdin]
             | list | reset-password <email> | disable <email> | enable <email> | delete <email>
             | admin <email> on|off | invite [--days <n>]     [--data <dir> | --database <url>]
                                   administer accounts on the server's data (refused while a
                                   server holds the data directory; on PostgreSQL beside nodes);
                                   docs/administration.md
      fod import --device <id> <file | dir | .tar[.gz]> [--data <dir> | --database <url>]
                                   import history into a device (refused while a server holds the
                                   data directory; on PostgreSQL while nodes run): Google Takeout
                                   Records.json or Semantic Location History, the phone's Timeline
                                   export, GPX, GeoJSON, CSV, this server's NDJSON export, OwnTracks
                                   Recorder .rec files (or a directory or tar of one device's)
                                   — detected from the content
      fod export group-geojson|group-ndjson|scatter <groupId>
                 | device-geojson|device-gpx|device-ndjson <deviceId> --as <email>
                 [--out <file>] [--tracks] [--from T] [--to T] [--format json|csv|vega-lite|svg] …
                                   the export endpoints offline, with that user's rights
      fod geo cell <lon> <lat> [--level N]
                                   the S2 cell id of a point: hex, token, signed Int64 key
      fod geo cover '<GeoJSON>' [--max-cells N] [--max-level N]
                                   the covering the index scans for a shape (or a geo operator)
      fod db check [--data <dir>]  verify the database (PRAGMA integrity_check)
      fod db check --database <url>
                                   verify a PostgreSQL database (latest locations, event ids, cells)
      fod db backup <file> [--data <dir>]
                                   copy the database while the server runs (SQLite's online backup)
      fod db restore <file> --data <dir>
                                   put a backup back into an empty data directory (server stopped)
      fod --help                   this text

    The data directory is --data <dir>, else $FOD_DATA, else ./fod-data. The web app, Data/ and
    docs/ are found from the binary's location (a checkout, or $PREFIX/share/fod after make
    install), else --share-dir <dir>.
    """

func runMain() -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    do {
        let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
        guard let command = arguments.positionals.first else {
            print(usage)
            return arguments.flags.contains("help") ? 0 : 2
        }
        switch command {
        case "serve":
            if arguments.flags.contains("help") { print(ServerConfiguration.help); return 0 }
            try ServeCommand.run(try ServerConfiguration(arguments: arguments, environment: environment))
            return 0
        case "demo":
            if arguments.flags.contains("help") { print(usage); return 0 }
            var serveArguments = arguments
            let speed = try Double(serveArguments.options.removeValue(forKey: "speed") ?? "10").flatMap { $0 > 0 ? $0 : nil }
                ?? { throw UsageError("--speed must be a positive number") }()
            let shipped = serveArguments.options.removeValue(forKey: "demo-data") ?? ShippedFiles(shareDirectory: serveArguments.options["share-dir"], environment: environment).data
            // A demo is for trying: anyone may sign up, unless told otherwise.
            if serveArguments.options["signup"] == nil && (environment["FOD_SIGNUP"] ?? "").isEmpty { serveArguments.options["signup"] = "open" }
            let records = try DemoCommand.loadRecords(dataDirectory: shipped)
            try ServeCommand.run(try ServerConfiguration(arguments: serveArguments, environment: environment)) { services, logger in
                Task {
                    do {
                        let credentials = try await DemoCommand.prepare(services, records: records, logger: logger)
                        await DemoCommand.replay(services, records: records, credentials: credentials, speed: speed, logger: logger)
                    } catch {
                        logger.error("demo failed: \(error)")
                    }
                }
            }
            return 0
        case "export":
            return try runAsync { try await ExportCommand.run(arguments, environment: environment) }
        case "geo":
            return try GeoCommand.run(arguments)
        case "import":
            return try runAsync { try await ImportCommand.run(arguments, environment: environment) }
        case "db":
            return try DatabaseCommand.run(arguments, environment: environment)
        case "user":
            return try runAsync { try await UserCommand.run(arguments, environment: environment) }
        case "help":
            print(usage)
            return 0
        default:
            throw UsageError("unknown command \(command)")
        }
    } catch let error as UsageError {
        FileHandle.standardError.write(Data("fod: \(error.description)\n\n\(usage)\n".utf8))
        return 2
    } catch {
        FileHandle.standardError.write(Data("fod: \(error)\n".utf8))
        return 1
    }
}

/// Runs async work from the synchronous entry point and waits for it.
func runAsync(_ work: @escaping @Sendable () async throws -> Int32) throws -> Int32 {
    let result = ResultBox()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { result.value = .success(try await work()) } catch { result.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result.value?.get() ?? 1
}

/// Carries a result from the task to the waiting thread (written before the semaphore signal).
final class ResultBox: @unchecked Sendable {
    var value: Result<Int32, Error>?
}

exit(runMain())
