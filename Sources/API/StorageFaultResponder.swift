import ErrorCodes
import Foundation
import HTTPServer
import Synchronization
import Tracking

/// Answers a request whose write failed because of the storage (a full disk, a read-only
/// database, a busy lock, an I/O error): a 503 with `Retry-After` in the API's error shape,
/// never a 500 — nothing was wrong with the request, and it may succeed later as it is. Reads
/// keep working meanwhile.
///
/// The operator needs to hear of a full or read-only disk, but a flood of failing requests must
/// not flood the log (which may well be on the same full disk): each fault is logged at most
/// once per `logInterval`, with the number of failures since the last line.
final class StorageFaultResponder: Sendable {
    let logger: Logger
    /// Seconds between two log lines for the same fault.
    let logInterval: Double
    private let lastLogged = Mutex<[StoreFailure.Kind: (at: Date, suppressed: Int)]>([:])

    init(logger: Logger, logInterval: Double = 10) {
        self.logger = logger
        self.logInterval = logInterval
    }

    /// The reply for `fault`: status 503, its code, message and `Retry-After` (seconds).
    static func reply(for fault: StoreFailure.Kind) -> (code: ErrorCode, message: String, retryAfter: Int) {
        switch fault {
        case .full:
            (.storageFull, "the server's storage is full, so this request's changes were not saved; reads still work; try again later", 30)
        case .readOnly:
            (.readOnly, "the server's database is read-only at the moment, so this request's changes were not saved; reads still work; try again later", 30)
        case .busy:
            (.busy, "the database is busy; try again", 1)
        case .unavailable:
            (.storageUnavailable, "the server could not write to its storage, so this request's changes were not saved; try again later", 5)
        }
    }

    /// The 503 for `error`.
    func response(for error: StoreFailure, request: Request) -> Response {
        let fault = error.kind
        if fault != .busy { log(fault, error, request) }
        let reply = Self.reply(for: fault)
        var response = ErrorMapper.body(status: 503, code: reply.code, message: reply.message)
        response.setHeader("Retry-After", String(reply.retryAfter))
        return response
    }

    private func log(_ fault: StoreFailure.Kind, _ error: StoreFailure, _ request: Request) {
        let now = Date()
        let suppressed: Int? = lastLogged.withLock { entries in
            if let last = entries[fault], now.timeIntervalSince(last.at) < logInterval {
                entries[fault] = (last.at, last.suppressed + 1)
                return nil
            }
            let suppressed = entries[fault]?.suppressed ?? 0
            entries[fault] = (now, 0)
            return suppressed
        }
        guard let suppressed else { return }
        let more = suppressed > 0 ? " (and \(suppressed) more such failure(s) since the last report)" : ""
        logger.error("\(request.requestID) \(LogText.escaped(request.method)) \(LogText.escaped(request.loggedPath)): storage \(Self.reply(for: fault).code), answered 503: \(error)\(more)")
    }
}
