import ErrorCodes
import LocationFormats
import Timestamps

/// Which ingest endpoint a message came to: the `source` of a rejection and of its metric.
public enum IngestSource: String, Sendable, CaseIterable {
    case owntracks, osmand, overland
}

/// Messages of one request that could not be stored, as the device's owner reads them
/// (`GET /v1/devices/{id}/rejections`): one per reason and request.
public struct IngestRejection: Sendable, Equatable {
    /// Longest `message` kept, in UTF-8 bytes.
    public static let maxMessageBytes = 300

    /// When the request arrived.
    public let at: Timestamp
    public let source: IngestSource
    public let reason: ErrorCode
    /// What was wrong, in words (the reason's message for the first of them).
    public let message: String
    /// The first of them as sent, without the credential, at most `UnusableMessage.maxSampleBytes`.
    public let sample: String
    /// How many messages of the request had this reason (≥ 1).
    public let count: Int

    public init(at: Timestamp, source: IngestSource, reason: ErrorCode, message: String, sample: String, count: Int) {
        self.at = at
        self.source = source
        self.reason = reason
        self.message = UnusableMessage.cut(message, maxBytes: Self.maxMessageBytes)
        self.sample = UnusableMessage.cut(sample)
        self.count = max(1, count)
    }

    /// One rejection per reason of `unusable`, in the order each reason first appears.
    public static func grouped(_ unusable: [UnusableMessage], at: Timestamp, source: IngestSource) -> [IngestRejection] {
        var order: [ErrorCode] = []
        var groups: [ErrorCode: (first: UnusableMessage, count: Int)] = [:]
        for message in unusable {
            if let group = groups[message.error.code] {
                groups[message.error.code] = (group.first, group.count + 1)
            } else {
                order.append(message.error.code)
                groups[message.error.code] = (message, 1)
            }
        }
        return order.compactMap { code in
            groups[code].map { group in
                IngestRejection(at: at, source: source, reason: code, message: group.first.error.message,
                                sample: group.first.sample, count: group.count)
            }
        }
    }
}

/// A region event a phone reported, as kept for its owner (`GET /v1/devices/{id}/events`).
public struct DeviceEvent: Sendable, Equatable {
    /// When the server received it.
    public let receivedAt: Timestamp
    public let transition: RegionTransition

    public init(receivedAt: Timestamp, transition: RegionTransition) {
        self.receivedAt = receivedAt
        self.transition = transition
    }
}

/// What one request said about its device besides the fixes, written in the same commit as
/// them: that the device was seen, its battery, what could not be stored, its region events.
///
/// Bounded: a request adds at most one rejection per reason (`IngestRejection.grouped`), and the
/// store keeps a device's newest `maxRejectionsKept` rejections and `maxEventsKept` events.
public struct DeviceReport: Sendable, Equatable {
    /// Rejections kept per device (the newest).
    public static let maxRejectionsKept = 100
    /// Region events kept per device (the newest).
    public static let maxEventsKept = 1_000

    /// When the request arrived (milliseconds since 1970).
    public var seenAt: Int64
    /// The newest battery level the request carried, fixes included.
    public var battery: BatteryReading?
    public var rejections: [IngestRejection]
    public var events: [DeviceEvent]

    public init(seenAt: Int64, battery: BatteryReading? = nil, rejections: [IngestRejection] = [], events: [DeviceEvent] = []) {
        self.seenAt = seenAt
        self.battery = battery
        self.rejections = rejections
        self.events = events
    }

    /// The report of a phone app's request that arrived at `seenAt` (its fixes' batteries are
    /// added by the ingest, which sees every path's fixes).
    public init(seenAt: Int64, source: IngestSource, payload: AppPayload) {
        let at = Timestamp(millisecondsSince1970: seenAt)
        self.init(seenAt: seenAt, battery: payload.battery,
                  rejections: IngestRejection.grouped(payload.unusable, at: at, source: source),
                  events: payload.transitions.map { DeviceEvent(receivedAt: at, transition: $0) })
    }

    /// This report with the battery of the newest of `fixes` that had one, when newer.
    public func addingBattery(of fixes: [Fix]) -> DeviceReport {
        guard let newest = BatteryReading.newest(in: fixes) else { return self }
        var report = self
        report.battery = newest.newer(than: battery)
        return report
    }
}

/// A device's status: when it last posted and its battery.
public struct DeviceStatus: Sendable, Equatable {
    /// `lastSeenAt` is written at most this often (one minute), so steady posting costs no
    /// write of its own; a change of battery is written at once.
    public static let seenResolutionMilliseconds: Int64 = 60_000

    /// When the device last made an authenticated ingest request (milliseconds since 1970).
    public var lastSeenAt: Int64?
    /// Its newest battery level and when it was read.
    public var battery: BatteryReading?

    public init(lastSeenAt: Int64? = nil, battery: BatteryReading? = nil) {
        self.lastSeenAt = lastSeenAt
        self.battery = battery
    }

    /// The status to store after `report`, or nil when nothing needs writing: `lastSeenAt`
    /// moves forward once it is `seenResolutionMilliseconds` old; the battery is replaced by a
    /// reading taken later than the stored one (and rewritten only when it changed or the
    /// stored one is a resolution old).
    public func updated(by report: DeviceReport) -> DeviceStatus? {
        var next = self
        if lastSeenAt.map({ report.seenAt - $0 >= Self.seenResolutionMilliseconds }) ?? true {
            next.lastSeenAt = max(report.seenAt, lastSeenAt ?? report.seenAt)
        }
        if let reading = report.battery {
            if let stored = battery {
                if reading.timestamp > stored.timestamp,
                   reading.percent != stored.percent || reading.timestamp - stored.timestamp >= Self.seenResolutionMilliseconds {
                    next.battery = reading
                }
            } else {
                next.battery = reading
            }
        }
        return next == self ? nil : next
    }
}
