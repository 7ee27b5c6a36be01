import Foundation
import Synchronization
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
    /// `2026-11-30T08:15:00.` for the current second, rebuilt once a second (log lines are
    /// written per request; formatting the date each time was a measurable cost).
    private let secondPrefix = Mutex<(second: Int64, text: [UInt8])>((-1, []))

    public init(level: Level = .info, fileDescriptor: Int32 = 2) {
        self.level = level
        self.fileDescriptor = fileDescriptor
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        let now = Timestamp.nowMilliseconds()
        var bytes = timestampPrefix(now)
        let millis = Int(now % 1000)
        bytes.append(UInt8(48 + millis / 100))
        bytes.append(UInt8(48 + millis / 10 % 10))
        bytes.append(UInt8(48 + millis % 10))
        bytes.append(contentsOf: "Z ".utf8)
        bytes.append(contentsOf: level.name.utf8)
        bytes.append(32)
        bytes.append(contentsOf: message().utf8)
        bytes.append(10)
        bytes.withUnsafeMutableBytes { raw in
            _ = Foundation.write(fileDescriptor, raw.baseAddress, raw.count)
        }
    }

    private func timestampPrefix(_ milliseconds: Int64) -> [UInt8] {
        let second = milliseconds / 1000
        return secondPrefix.withLock { cached in
            if cached.second != second {
                let full = Timestamp.rfc3339(millisecondsSince1970: second * 1000)
                cached = (second, Array(full.utf8.prefix(20)))  // through the "."
            }
            return cached.text
        }
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// Client-controlled text made safe for one log line.
public enum LogText {
    /// `text` with every byte outside printable ASCII (controls, space, DEL, non-ASCII), `"` and
    /// the backslash written as `\xHH`: a client cannot break a line, forge a field or hide a byte.
    public static func escaped(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy(isPlain) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + 16)
        let hex = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            if isPlain(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
