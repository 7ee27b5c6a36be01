import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Tells when a `Process` has exited, with a bounded wait.
///
/// Foundation's `waitUntilExit()` polls the calling thread's run loop with no limit, and has been
/// seen to hang on Linux; a test that waits for a child that never ends hangs the whole test run.
/// This waits on the process's termination handler instead, which Foundation calls from its own
/// monitoring thread once the exit status is set.
///
/// Install it before `run()`: a handler installed later can miss an early exit.
public final class ExitWatch: Sendable {
    private let exited = DispatchSemaphore(value: 0)
    private let hasExited = Atomic<Bool>(false)

    public init(_ process: Process) {
        process.terminationHandler = { [self] _ in
            hasExited.store(true, ordering: .releasing)
            exited.signal()
        }
    }

    /// True once the process has exited (its `terminationStatus` is then valid).
    public var isDone: Bool { hasExited.load(ordering: .acquiring) }

    /// Waits up to `seconds` for the exit; true if the process has exited.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        if isDone { return true }
        guard exited.wait(timeout: .now() + seconds) == .success else { return isDone }
        exited.signal()  // for any other waiter
        return true
    }
}

/// Reads a pipe to its end on a thread of its own, keeping what arrived, so that a child never
/// blocks on a full pipe that nobody reads (64 KiB of log lines would stop a server mid-request).
public final class PipeDrain: @unchecked Sendable {
    // @unchecked: `kept`, `dropped` and `ended` are guarded by `condition`.
    private let condition = NSCondition()
    private var kept: [UInt8] = []
    /// Bytes dropped from the front of `kept` to respect `keptBytes`.
    private var dropped = 0
    private var ended = false
    /// At most this many bytes are kept: the newest.
    public let keptBytes: Int

    /// Starts reading `handle` (the parent's read end) until end of file.
    public init(_ handle: FileHandle, keptBytes: Int = 4 << 20) {
        self.keptBytes = keptBytes
        let thread = Thread { [self] in
            // The handle lives as long as this thread reads it (it closes its descriptor when freed).
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                condition.lock()
                kept.append(contentsOf: buffer[0..<count])
                if kept.count > keptBytes {
                    dropped += kept.count - keptBytes
                    kept.removeFirst(kept.count - keptBytes)
                }
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
            ended = true
            condition.broadcast()
            condition.unlock()
            withExtendedLifetime(handle) {}
        }
        thread.name = "test-pipe-drain"
        thread.start()
    }

    /// What arrived so far, as text.
    public var text: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: kept, as: UTF8.self)
    }

    /// Waits up to `seconds` for the end of the pipe (every writer closed it), then returns what
    /// arrived.
    public func textAtEnd(waitingSeconds seconds: Double) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !ended && condition.wait(until: deadline) {}
        return String(decoding: kept, as: UTF8.self)
    }

    /// The first line (without its newline) once it has arrived; nil if the pipe ended or
    /// `seconds` passed first.
    public func firstLine(waitingSeconds seconds: Double) -> String? {
        firstLine(startingWith: "", waitingSeconds: seconds)
    }

    /// The first line (without its newline) that starts with `prefix`, once it has arrived; nil
    /// if the pipe ended, its start was dropped, or `seconds` passed first.
    public func firstLine(startingWith prefix: String, waitingSeconds seconds: Double) -> String? {
        let wanted = Array(prefix.utf8)
        return firstLine(waitingSeconds: seconds) { $0.starts(with: wanted) }
    }

    /// The first line (without its newline) that contains `text`, as `firstLine(startingWith:)`.
    public func firstLine(containing text: String, waitingSeconds seconds: Double) -> String? {
        firstLine(waitingSeconds: seconds) { String(decoding: $0, as: UTF8.self).contains(text) }
    }

    private func firstLine(waitingSeconds seconds: Double, where matches: (ArraySlice<UInt8>) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if dropped == 0 {
                let lines = kept.split(separator: 10, omittingEmptySubsequences: false).dropLast()
                if let line = lines.first(where: matches) { return String(decoding: line, as: UTF8.self) }
            }
            if ended || dropped > 0 || !condition.wait(until: deadline) { return nil }
        }
    }
}

public struct ChildProcessFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs a program to completion with its standard output and error in one text, within a time
/// limit (past it the child is killed and this throws, with what it printed). `input` (a few
/// bytes: less than a pipe holds) is its standard input; without, it reads an empty one.
public func runToCompletion(_ executable: String, _ arguments: [String], input: [UInt8]? = nil,
                            limitSeconds: Double = 600) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let standardInput = input.map { _ in Pipe() }
    process.standardInput = standardInput ?? FileHandle.nullDevice
    let watch = ExitWatch(process)
    try process.run()
    if let standardInput, let input {
        standardInput.fileHandleForWriting.write(Data(input))
        try standardInput.fileHandleForWriting.close()
    }
    let drain = PipeDrain(pipe.fileHandleForReading)
    guard watch.wait(seconds: limitSeconds) else {
        kill(process.processIdentifier, SIGKILL)
        watch.wait(seconds: 30)
        throw ChildProcessFailure("\(executable) \(arguments.joined(separator: " ")) still running after \(Int(limitSeconds)) s; killed. It printed: \(drain.text)")
    }
    // The exit closed the child's ends; a grandchild that kept them open is not waited for long.
    return (process.terminationStatus, drain.textAtEnd(waitingSeconds: 10))
}
