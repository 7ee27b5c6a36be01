import Foundation

/// The advisory lock on a data directory (`flock(2)` on `<dir>/fod.lock`): `fod serve` holds it
/// for its whole lifetime on the embedded database, and every command that writes the
/// directory (`fod import`, and the commands that restore or administer it) takes it too,
/// refusing at once when a server holds it — two writers on one SQLite database would fight
/// over its files (the server answered 500 `UNIQUE constraint failed: index_queue.seq`).
///
/// The kernel drops the lock when its holder exits, however it exits (`kill -9` included), so
/// a crashed server never leaves a stale lock. The file holds the holder's process id and
/// command, for the message a refused command prints. A read-only data directory is locked
/// through a read-only descriptor (a server may serve reads from it), or not at all when it has
/// no lock file (nothing can write it then). One owner of the descriptor: this object, which
/// closes it (releasing the lock) in `deinit`.
final class DataDirectoryLock: Sendable {
    /// The name of the lock file inside the data directory.
    static let fileName = "fod.lock"

    private let descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Takes the lock on `directory` (created when missing) for `purpose` (e.g. "fod serve"), or
    /// throws `DataDirectoryBusy` at once when another process holds it; `advice` ends its
    /// message (what to do instead).
    static func acquire(_ directory: String, for purpose: String, advice: String = "stop it first") throws -> DataDirectoryLock {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(fileName)
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 && (errno == EACCES || errno == EROFS) {
            // A read-only data directory (a server may still read it): `flock` needs no write access.
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            // Without a lock file there, nothing can write the directory, so there is nothing to guard.
            if descriptor < 0 && errno == ENOENT { return DataDirectoryLock(descriptor: -1, path: path) }
        }
        guard descriptor >= 0 else {
            throw DataDirectoryBusy(directory: directory, holder: nil, advice: advice, reason: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            let holder = holderText(descriptor)
            close(descriptor)
            guard failure == EWOULDBLOCK else {
                throw DataDirectoryBusy(directory: directory, holder: nil, advice: advice, reason: "cannot lock \(path): \(String(cString: strerror(failure)))")
            }
            throw DataDirectoryBusy(directory: directory, holder: holder, advice: advice, reason: nil)
        }
        let lock = DataDirectoryLock(descriptor: descriptor, path: path)
        lock.record("\(getpid()) \(purpose)\n")
        return lock
    }

    /// Writes who holds the lock into the file (informative only: the lock is the `flock`).
    private func record(_ text: String) {
        _ = ftruncate(descriptor, 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// What the holder wrote into the file, trimmed (at most 200 bytes), or nil.
    private static func holderText(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 200)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

/// A data directory another process holds (or one that cannot be locked): printed as the
/// command's error, exit status 1.
struct DataDirectoryBusy: Error, CustomStringConvertible {
    let directory: String
    /// What the holder recorded: "<pid> <command>".
    let holder: String?
    /// What to do instead, e.g. "stop it first".
    let advice: String
    /// Set when the lock could not be taken for another reason than a holder.
    let reason: String?

    var description: String {
        if let reason { return reason }
        let who = holder.map { "a running server (process \($0))" } ?? "a running server"
        return "the data directory \(directory) is in use by \(who): \(advice)"
    }
}
