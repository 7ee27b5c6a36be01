import Foundation
import ProcessTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A mount made for a fault test — a size-limited tmpfs, or a bind mount that can be switched
/// between read-only and read-write — unmounted by `unmount` (call it in a `defer`).
/// Mounting needs root (CAP_SYS_ADMIN): see `ScratchMount.isAvailable`.
public final class ScratchMount: Sendable {
    public let path: String

    private init(path: String) { self.path = path }

    /// Whether this process may mount (root, and a trial tmpfs mount works), checked once.
    public static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let probe = NSTemporaryDirectory() + "fod-mount-probe-" + UUID().uuidString
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", probe)) != nil else { return false }
        return (try? run("umount", probe)) != nil
    }()

    /// A fresh tmpfs of `sizeBytes` bytes on a new temporary directory.
    public static func tmpfs(sizeBytes: Int) throws -> ScratchMount {
        let path = NSTemporaryDirectory() + "fod-tmpfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try run("mount", "-t", "tmpfs", "-o", "size=\(sizeBytes)", "tmpfs", path)
        return ScratchMount(path: path)
    }

    /// `source` (a directory or a file) bind-mounted at `target` (or onto itself), read-only.
    public static func readOnlyBind(_ source: String, at target: String? = nil) throws -> ScratchMount {
        let path = target ?? source
        try run("mount", "--bind", source, path)
        let mount = ScratchMount(path: path)
        try mount.remount(readOnly: true)
        return mount
    }

    /// Makes a bind mount read-only or writable again (open files stay open).
    public func remount(readOnly: Bool) throws {
        try Self.run("mount", "-o", "remount,bind,\(readOnly ? "ro" : "rw")", path)
    }

    /// Changes a tmpfs's size limit in place.
    public func resize(bytes: Int) throws {
        try Self.run("mount", "-o", "remount,size=\(bytes)", path)
    }

    public func unmount() {
        _ = try? Self.run("umount", path)
    }

    @discardableResult
    static func run(_ arguments: String...) throws -> String {
        let (status, output) = try runToCompletion("/usr/bin/env", arguments, limitSeconds: 120)
        guard status == 0 else {
            throw ProcessFailure("\(arguments.joined(separator: " ")) failed (\(status)): \(output)")
        }
        return output
    }
}

/// Fills the free space of the filesystem holding `directory` with one file (written until the
/// filesystem refuses with ENOSPC); returns the file's path.
public func fillFilesystem(at directory: String) throws -> String {
    let path = directory + "/filler"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw ProcessFailure("cannot create \(path): errno \(errno)") }
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0x5a, count: 64 * 1024)
    // Big writes first, then single bytes, so that not even one byte is left.
    for size in [64 * 1024, 4096, 1] {
        while true {
            let written = chunk.withUnsafeMutableBytes { write(fd, $0.baseAddress, size) }
            if written < size { break }
        }
    }
    _ = fsync(fd)
    return path
}

/// Sets the soft `RLIMIT_FSIZE` of process `pid` (ours or a child), with util-linux `prlimit`
/// (glibc's `prlimit` is not visible to Swift): writes at or beyond `bytes` into any file then
/// fail with EFBIG (the process must ignore SIGXFSZ, as `fod serve` does); nil lifts the limit.
public func setFileSizeLimit(pid: pid_t, bytes: UInt64?) throws {
    try ScratchMount.run("prlimit", "--pid", String(pid), "--fsize=\(bytes.map(String.init) ?? "unlimited"):unlimited")
}

/// The checkpoint sequence number in the header of a WAL file (bytes 12–15, big-endian): SQLite
/// raises it each time the log starts over after a complete checkpoint. Nil without a header.
public func walCheckpointSequence(_ walPath: String) -> UInt32? {
    guard let handle = FileHandle(forReadingAtPath: walPath) else { return nil }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: 32), header.count == 32 else { return nil }
    return header[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
}
