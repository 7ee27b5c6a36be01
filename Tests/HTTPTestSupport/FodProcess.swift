import Foundation

/// Runs the real `fod` executable (built next to the test bundle) as a child process.
public final class FodProcess: @unchecked Sendable {
    public let process = Process()
    public let dataDirectory: String
    public private(set) var port: UInt16 = 0
    private let output = Pipe()
    private let errors = Pipe()

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

    /// Starts `fod serve` on a free port over `dataDirectory` and waits until it listens.
    public init(dataDirectory: String, extraArguments: [String] = []) throws {
        self.dataDirectory = dataDirectory
        process.executableURL = URL(fileURLWithPath: Self.executablePath)
        process.arguments = ["serve", "--port", "0", "--bind", "127.0.0.1", "--data", dataDirectory,
                             "--password-cost", "minimal", "--log-level", "warning", "--sign-in-limit", "1000",
                             // Tests post and sign up fast from one address: the abuse limits are tested on their own.
                             "--sign-up-limit", "100000", "--sign-in-address-limit", "100000", "--device-request-rate", "0"] + extraArguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let line = try readLine(from: output.fileHandleForReading)
        guard let last = line.split(separator: " ").last, let port = UInt16(last) else {
            throw ProcessFailure("unexpected first line from fod: \(line)")
        }
        self.port = port
    }

    /// Sends `signal` and waits for the process to exit; returns its termination status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything the process wrote to standard error (after it exited).
    public var standardError: String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Runs `fod <arguments>` to completion; returns (status, stdout).
    public static func run(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func readLine(from handle: FileHandle) throws -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            if chunk.isEmpty { throw ProcessFailure("fod exited before listening: \(standardError)") }
            if chunk[0] == 10 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(chunk[0])
        }
    }
}

public struct ProcessFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
