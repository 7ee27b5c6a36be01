import ErrorCodes
import HTTPServer
import JSONCore
import LocationFormats
import Synchronization
import Timestamps
import Tracking

/// The one rule of the phone-app endpoints (API.md, "Phone apps never stall"): a request with a
/// valid device credential whose body arrived whole is answered 2xx whatever it holds. What
/// cannot be stored is recorded for the device's owner (`GET /v1/devices/{id}/rejections`, the
/// `fod_ingest_rejections_total` metric) in the same commit as the fixes, never answered 4xx:
/// an app whose queue head gets a 4xx sends it again forever. Only a bad credential (401), a
/// body over the route's limit (413, before this) and the device's rate limit (429) refuse; a
/// fault of the storage is a 503 the app may retry.
struct PhoneIngest: Sendable {
    let locations: LocationService
    let metrics: RejectionMetrics

    /// Stores `payload` for the device of `credential` with its report (seen now, battery,
    /// rejections, region events); `completion` gets the outcome once durable. `token` (the
    /// credential as the app sent it) is blanked out of every sample and message kept.
    func ingest(_ payload: AppPayload, source: IngestSource, credential: Credential, token: String,
                completion: @escaping @Sendable (Result<IngestOutcome, Error>) -> Void) throws {
        guard case .device(let deviceID, _) = credential else { throw TrackingError.unauthenticated }
        var payload = payload
        payload.unusable = payload.unusable.map { Self.withoutCredential($0, token: token) }
        let report = DeviceReport(seenAt: Timestamp.nowMilliseconds(), source: source, payload: payload)
        let metrics = self.metrics
        try locations.ingest(payload.fixes, deviceID: deviceID, credential: credential, report: report) { result in
            switch result {
            case .success:
                metrics.count(report.rejections)
                completion(result)
            case .failure(let error as TrackingError) where error.kind == .notFound:
                // The device went away (removed with its token) while the request ran.
                completion(.failure(TrackingError.unauthenticated))
            case .failure:
                completion(result)
            }
        }
    }

    /// `message` with every occurrence of `token` replaced by `…`.
    static func withoutCredential(_ message: UnusableMessage, token: String) -> UnusableMessage {
        guard !token.isEmpty else { return message }
        return UnusableMessage(error: FixError(code: message.error.code, message: message.error.message.replacing(token, with: "…")),
                               sample: message.sample.replacing(token, with: "…"))
    }

    /// The reply body's counts: `accepted`, `duplicates`, and `rejected` (what was recorded
    /// instead of stored, each `{"error": {"code", "message"}}`).
    static func counts(_ outcome: IngestOutcome, _ payload: AppPayload) -> JSONObject {
        ["accepted": .number(JSONNumber(outcome.accepted)), "duplicates": .number(JSONNumber(outcome.duplicates)),
         "rejected": .array(payload.unusable.map { unusable in
             ["error": ["code": .string(unusable.error.code.rawValue), "message": .string(unusable.error.message)]]
         })]
    }
}

extension AppPayload {
    /// A body that cannot be used at all, with its first bytes as the sample.
    init(unusableBody bytes: [UInt8], _ error: FixError) {
        self.init(unusable: [UnusableMessage(error: error, sample: String(decoding: bytes.prefix(4 * UnusableMessage.maxSampleBytes), as: UTF8.self))])
    }

    /// A body that is not JSON.
    init(notJSON bytes: [UInt8], _ error: Error) {
        self.init(unusableBody: bytes, FixError(code: .malformedJSON, message: "the body is not JSON: \(error)"))
    }
}

/// `fod_ingest_rejections_total{source, reason}`: messages of the phone apps recorded instead
/// of stored. Labels come from `IngestSource` and the server's own error codes, so the set of
/// series stays bounded whatever clients send.
public final class RejectionMetrics: Sendable {
    private struct Key: Hashable { let source: IngestSource; let reason: ErrorCode }
    private let counts = Mutex<[Key: UInt64]>([:])

    /// Counts every message of `rejections`.
    func count(_ rejections: [IngestRejection]) {
        guard !rejections.isEmpty else { return }
        counts.withLock { counts in
            for rejection in rejections {
                counts[Key(source: rejection.source, reason: rejection.reason), default: 0] += UInt64(rejection.count)
            }
        }
    }

    /// The counter in Prometheus' text format (its HELP and TYPE lines even before any count).
    public func render() -> String {
        let snapshot = counts.withLock { $0 }
        var out = "# HELP fod_ingest_rejections_total Phone-app messages recorded for their owner instead of stored, by source and reason.\n"
        out += "# TYPE fod_ingest_rejections_total counter\n"
        for (key, value) in snapshot.sorted(by: { ($0.key.source.rawValue, $0.key.reason.rawValue) < ($1.key.source.rawValue, $1.key.reason.rawValue) }) {
            out += "fod_ingest_rejections_total{source=\"\(key.source.rawValue)\",reason=\"\(key.reason.rawValue)\"} \(value)\n"
        }
        return out
    }
}
