import Foundation
import ProcessTestSupport

/// Runs the real `fod` executable (built next to the test bundle) as a child process.
///
/// Its output is read as it comes (a child writing to a pipe nobody reads stops at 64 KiB), and
/// every wait for it is bounded: a server that does not stop is killed and the test fails, rather
/// than the whole test run hanging.
public final class FodProcess: @unchecked Sendable {
    // @unchecked: `process` is configured in `init` and only read afterwards; `port` is set once there.
    public let process = Process()
    public let dataDirectory: String
    public private(set) var port: UInt16 = 0
    /// The port of the metrics listener (`--metrics-listen`), once it listens.
    public private(set) var metricsPort: UInt16?
    private let exit: ExitWatch
    private let output = Pipe()
    private let errors = Pipe()
    private let errorText: PipeDrain
    private let outputText: PipeDrain

    /// How long `stop` waits for the process to exit after its signal, in seconds, before it kills it.
    public static let stopLimitSeconds = 120.0

    /// The `fod` binary beside the test binary in `.build/<config>/`.
    public static var executablePath: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The Swift Testing runner may be inside the .xctest bundle directory.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("fod").path),
              directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("fod").path
    }

    /// The bearer token test servers want for `/metrics` (`--metrics-token`, see `init`).
    public static let metricsToken = "test-metrics-token-5f0c2a"

    /// Starts `fod serve` on a free port over `dataDirectory` and waits until it listens (and,
    /// with `--metrics-listen` among `extraArguments`, until its metrics listener does).
    /// - Parameters:
    ///   - metricsToken: `--metrics-token` (nil: none, `/metrics` off the public port).
    ///   - executable: the `fod` binary (an installed copy, say); `command`: `serve` or `demo`;
    ///     `workingDirectory`: where it runs (nil: this process's).
    public init(dataDirectory: String, extraArguments: [String] = [], metricsToken: String? = FodProcess.metricsToken,
                executable: String = FodProcess.executablePath, command: String = "serve", workingDirectory: String? = nil) throws {
        self.dataDirectory = dataDirectory
        process.executableURL = URL(fileURLWithPath: executable)
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.arguments = [command, "--port", "0", "--bind", "127.0.0.1", "--data", dataDirectory,
                             "--password-cost", "minimal", "--log-level", "warning", "--sign-in-limit", "1000",
                             // Tests post and sign up fast from one address: the abuse limits are tested on their own.
                             "--sign-up-limit", "100000", "--sign-in-address-limit", "100000", "--device-request-rate", "0",
                             // Tests sign up many users on one server; the sign-up policy is tested with its own
                             // `--signup` among `extraArguments` (a later option wins).
                             "--signup", "open"]
            + (metricsToken.map { ["--metrics-token", $0] } ?? []) + extraArguments
        process.standardOutput = output
        process.standardError = errors
        exit = ExitWatch(process)
        try process.run()
        errorText = PipeDrain(errors.fileHandleForReading)
        outputText = PipeDrain(output.fileHandleForReading)
        // The first line of its standard output names the port it listens on.
        let line = outputText.firstLine(waitingSeconds: Self.stopLimitSeconds)
        guard let line, let last = line.split(separator: " ").last, let port = UInt16(last) else {
            kill(process.processIdentifier, SIGKILL)
            exit.wait(seconds: 30)
            // Once the process is gone its standard error ends; read it to the end (what it said
            // may still be in the pipe).
            throw ProcessFailure("fod did not start listening (first line: \(line ?? "none")): \(errorText.textAtEnd(waitingSeconds: 30))")
        }
        self.port = port
        if extraArguments.contains("--metrics-listen") {
            let metricsLine = outputText.firstLine(startingWith: "fod metrics listening on port ", waitingSeconds: Self.stopLimitSeconds)
            metricsPort = metricsLine?.split(separator: " ").last.flatMap { UInt16($0) }
        }
    }

    /// Sends `signal` and waits for the process to exit; returns its termination status. A
    /// process still running `stopLimitSeconds` after the signal is killed, and this returns -1.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        if exit.wait(seconds: Self.stopLimitSeconds) { return process.terminationStatus }
        kill(process.processIdentifier, SIGKILL)
        exit.wait(seconds: 30)
        return -1
    }

    /// Everything the process wrote to standard error (after it exited: all of it).
    public var standardError: String {
        errorText.textAtEnd(waitingSeconds: exit.isDone ? 10 : 0)
    }

    /// Runs `fod <arguments>` to completion (`input` its standard input); returns (status, stdout and stderr).
    public static func run(_ arguments: [String], input: String? = nil) throws -> (Int32, String) {
        try runToCompletion(executablePath, arguments, input: input.map { Array($0.utf8) })
    }
}

public struct ProcessFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
