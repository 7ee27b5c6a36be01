import Foundation

let usage = """
    fod — Find Our Devices, a self-hosted location server

    Usage:
      fod serve [options]          run the HTTP server (see `fod serve --help`)
      fod db check [--data <dir>]  verify the database (PRAGMA integrity_check)
      fod db backup <file> [--data <dir>]
                                   copy the database with SQLite's online backup
      fod --help                   this text

    The data directory is --data <dir>, else $FOD_DATA, else ./fod-data.
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
        case "db":
            return try DatabaseCommand.run(arguments, environment: environment)
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

exit(runMain())
