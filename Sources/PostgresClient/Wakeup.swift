#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe that ends a `NotificationListener`'s wait from another thread: once `signal()` was
/// called, every wait given this wakeup returns at once. Owns both descriptors and closes them
/// when it goes.
public final class Wakeup: Sendable {
    /// The read end, watched by waits; the write end, written by `signal()`. Both non-blocking.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    public init() throws(PostgresError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw .client(.internalError, "pipe(2) failed (errno \(errno))") }
        for descriptor in descriptors {
            let flags = fcntl(descriptor, F_GETFL)
            _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Wakes the current wait and every later one (any thread; a full pipe is already signalled).
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }
}
