import Foundation
import ProcessTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A script of `scripts/` run in `supervise` mode: it starts its servers, prints one line
/// `ready FIELDS…` and holds them for as long as this process holds its standard input open.
/// `stop()` (or `deinit`, or this process ending in any way, even `kill -9`) closes it, and the
/// script stops what it started and deletes its directory.
final class SupervisedScript: @unchecked Sendable {
    // @unchecked: `lifeline` is guarded by `lock`; the rest is immutable.
    /// What followed `ready ` on the script's line.
    let readyLine: String
    private let process: Process
    private let exit: ExitWatch
    private let lock = NSLock()
    /// The write end of the child's standard input (-1 once closed); guarded by `lock`.
    private var lifeline: Int32

    /// The path of `scripts/NAME` in this checkout.
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/\(name)").path
    }

    /// Runs `bash script arguments` and waits for its `ready` line; throws with what it said
    /// instead (having stopped it).
    init(_ script: String, _ arguments: [String]) throws {
        // No other child (a server started by a concurrent test) may inherit the lifeline, or
        // closing it here would not reach this child.
        let input = try ClosingPipe()
        let output = try ClosingPipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardInput = FileHandle(fileDescriptor: input.read, closeOnDealloc: false)
        process.standardOutput = FileHandle(fileDescriptor: output.write, closeOnDealloc: false)
        process.standardError = FileHandle.nullDevice
        let exit = ExitWatch(process)
        do {
            try process.run()
        } catch {
            input.closeBoth()
            output.closeBoth()
            throw error
        }
        close(input.read)
        close(output.write)
        let line = Self.readLine(from: output.read)
        close(output.read)
        self.process = process
        self.exit = exit
        lifeline = input.write
        guard line.hasPrefix("ready ") else {
            readyLine = ""
            stop()
            let name = URL(fileURLWithPath: script).lastPathComponent
            throw ServerFailure("\(name) \(arguments.joined(separator: " ")): \(line.isEmpty ? "no output" : line)")
        }
        readyLine = String(line.dropFirst("ready ".count))
    }

    /// Closes the lifeline and waits until the script stopped everything and exited (at most
    /// 300 s, then kills it). Idempotent.
    func stop() {
        lock.lock()
        let descriptor = lifeline
        lifeline = -1
        lock.unlock()
        guard descriptor >= 0 else { return }
        close(descriptor)
        if !exit.wait(seconds: 300) { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }

    /// Reads up to the first newline (or end of file).
    private static func readLine(from descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == 10 { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A pipe whose two descriptors are close-on-exec (the child's copies, made by `dup2`, are not).
/// Foundation's `Process` also closes every other descriptor in the children it starts, so a
/// server started by a concurrent test does not inherit these in the moment before `fcntl`.
private struct ClosingPipe {
    let read: Int32
    let write: Int32

    init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw ServerFailure("pipe failed (errno \(errno))") }
        read = descriptors[0]
        write = descriptors[1]
        _ = fcntl(read, F_SETFD, FD_CLOEXEC)
        _ = fcntl(write, F_SETFD, FD_CLOEXEC)
    }

    func closeBoth() {
        close(read)
        close(write)
    }
}
