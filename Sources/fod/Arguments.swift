/// Command-line arguments: positionals and `--name value` / `--name=value` / `--flag` options.
struct Arguments {
    var positionals: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    /// Parses `arguments`; `flagNames` take no value.
    init(_ arguments: [String], flagNames: Set<String> = ["help", "quick", "tracks", "notify-allow-private", "admin", "password-stdin"]) throws(UsageError) {
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            if arg == "--" {
                positionals += arguments[(i + 1)...]
                break
            }
            if arg.hasPrefix("--") {
                let body = String(arg.dropFirst(2))
                if let equals = body.firstIndex(of: "=") {
                    options[String(body[..<equals])] = String(body[body.index(after: equals)...])
                } else if flagNames.contains(body) {
                    flags.insert(body)
                } else {
                    guard i + 1 < arguments.count else { throw UsageError("option --\(body) needs a value") }
                    options[body] = arguments[i + 1]
                    i += 1
                }
            } else if arg == "-h" {
                flags.insert("help")
            } else {
                positionals.append(arg)
            }
            i += 1
        }
    }

    func int(_ name: String) throws(UsageError) -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text) else { throw UsageError("--\(name) must be a whole number, not \(text)") }
        return value
    }

    /// Fails on any option not in `known`.
    func rejectUnknown(_ known: Set<String>) throws(UsageError) {
        for name in options.keys.sorted() where !known.contains(name) {
            throw UsageError("unknown option --\(name)")
        }
    }
}

/// A mistake in how the command was called (exit status 2).
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
