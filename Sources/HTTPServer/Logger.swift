import Foundation
import Timestamps

/// A minimal leveled logger writing one line per call to standard error.
///
/// Lines are `2026-11-30T08:15:00.000Z level message`; a line is written with one `write(2)`
/// so lines from different threads never interleave.
public final class Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }

        public var name: String { ["debug", "info", "warning", "error"][rawValue] }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let level: Level
    private let fileDescriptor: Int32

    public init(level: Level = .info, fileDescriptor: Int32 = 2) {
        self.level = level
        self.fileDescriptor = fileDescriptor
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        var line = Timestamp.rfc3339(millisecondsSince1970: Timestamp.nowMilliseconds())
        line += " "
        line += level.name
        line += " "
        line += message()
        line += "\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in
            _ = Foundation.write(fileDescriptor, raw.baseAddress, raw.count)
        }
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

