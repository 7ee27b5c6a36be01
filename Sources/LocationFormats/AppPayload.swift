import JSONCore

/// What one request of a phone app carried, once read: the fixes to store and everything else
/// its owner should see. Reading a phone app's request never fails: what cannot be stored is
/// listed in `unusable` (the app is answered 2xx and must not resend it).
public struct AppPayload: Sendable, Equatable {
    /// Valid fixes, in the order sent.
    public var fixes: [Fix] = []
    /// What could not be stored, with why.
    public var unusable: [UnusableMessage] = []
    /// The newest battery level of a message that carried no storable fix (a heartbeat, a fix
    /// the device marked invalid); the fixes' own levels are in `fixes`.
    public var battery: BatteryReading?
    /// Region events the phone itself detected (OwnTracks `transition`).
    public var transitions: [RegionTransition] = []

    public init(fixes: [Fix] = [], unusable: [UnusableMessage] = [], battery: BatteryReading? = nil,
                transitions: [RegionTransition] = []) {
        self.fixes = fixes
        self.unusable = unusable
        self.battery = battery
        self.transitions = transitions
    }

    /// A payload of one message that could not be used at all.
    public init(unusable error: FixError, sample: String) {
        self.init(unusable: [UnusableMessage(error: error, sample: sample)])
    }

    /// Adds what `other` carried (a batch element's reading).
    public mutating func merge(_ other: AppPayload) {
        fixes += other.fixes
        unusable += other.unusable
        transitions += other.transitions
        if let reading = other.battery { battery = reading.newer(than: battery) }
    }
}

/// A message of a phone app that is not stored as a fix, kept for its owner.
public struct UnusableMessage: Sendable, Equatable {
    /// At most this many bytes of UTF-8 of a message are kept as its sample.
    public static let maxSampleBytes = 512

    /// Why it cannot be stored (its `code` is the reason the owner sees).
    public let error: FixError
    /// The message as sent, without the credential, cut to `maxSampleBytes` (at a character
    /// boundary, with `…` when cut).
    public let sample: String

    public init(error: FixError, sample: String) {
        self.error = error
        self.sample = Self.cut(sample)
    }

    /// A message that is a JSON value: its compact serialization.
    public init(error: FixError, json: JSONValue) {
        self.init(error: error, sample: String(decoding: json.serialized().prefix(4 * Self.maxSampleBytes), as: UTF8.self))
    }

    /// `text` cut to `maxBytes` bytes of UTF-8 at a character boundary, ending in `…` when cut.
    public static func cut(_ text: String, maxBytes: Int = maxSampleBytes) -> String {
        guard text.utf8.count > maxBytes else { return text }
        let ellipsis = "…"
        return utf8Prefix(text, maxBytes: max(0, maxBytes - ellipsis.utf8.count)) + ellipsis
    }
}

/// A battery level a device reported, and the time of the message that carried it.
public struct BatteryReading: Sendable, Equatable {
    /// Percent, 0…100.
    public var percent: Double
    /// Milliseconds since 1970 UTC.
    public var timestamp: Int64

    public init(percent: Double, timestamp: Int64) {
        self.percent = percent
        self.timestamp = timestamp
    }

    /// This reading or `other`, whichever was taken later (ties: this one, the later arrival).
    public func newer(than other: BatteryReading?) -> BatteryReading {
        guard let other, other.timestamp > timestamp else { return self }
        return other
    }

    /// The reading of the newest fix (by time) that carried a battery level.
    public static func newest(in fixes: [Fix]) -> BatteryReading? {
        var newest: BatteryReading?
        for fix in fixes {
            guard let percent = fix.battery else { continue }
            newest = BatteryReading(percent: percent, timestamp: fix.timestamp).newer(than: newest)
        }
        return newest
    }
}

/// A region event the phone detected itself (OwnTracks `transition`): it entered or left one of
/// the regions set up in the app.
public struct RegionTransition: Sendable, Equatable {
    public enum Event: String, Sendable {
        case enter, leave
    }

    /// Longest region name kept, in UTF-8 bytes (longer names are cut).
    public static let maxRegionBytes = 200

    public let event: Event
    /// The region's name in the app (`desc`); empty when the app sent none.
    public let region: String
    /// When it happened: milliseconds since 1970 UTC.
    public let timestamp: Int64
    /// Where the phone was (degrees), when it said so.
    public let longitude: Double?
    public let latitude: Double?
    /// Accuracy of that position in meters.
    public let accuracy: Double?
    /// What detected it, as the app says (`c` circular region, `b` beacon, `l` location); at
    /// most 8 bytes.
    public let trigger: String?

    public init(event: Event, region: String, timestamp: Int64, longitude: Double? = nil, latitude: Double? = nil,
                accuracy: Double? = nil, trigger: String? = nil) {
        self.event = event
        self.region = utf8Prefix(region, maxBytes: Self.maxRegionBytes)
        self.timestamp = timestamp
        self.longitude = longitude
        self.latitude = latitude
        self.accuracy = accuracy
        self.trigger = trigger.map { utf8Prefix($0, maxBytes: 8) }
    }
}

/// The longest prefix of `text` of whole characters that is at most `maxBytes` bytes of UTF-8.
func utf8Prefix(_ text: String, maxBytes: Int) -> String {
    guard text.utf8.count > maxBytes else { return text }
    var kept = "", bytes = 0
    for character in text {
        bytes += character.utf8.count
        guard bytes <= maxBytes else { break }
        kept.append(character)
    }
    return kept
}
