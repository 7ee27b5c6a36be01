/// A member's device in one of the asking device's groups, as the store reads it.
public struct FriendCandidate: Sendable, Equatable {
    public let groupID: GroupID
    public let userID: UserID
    public let displayName: String
    public let deviceID: DeviceID
    public let deviceName: String
    /// Whether the member shares in this group now.
    public let sharing: Bool
    /// The device's latest location, nil when it has none.
    public let latest: LastLocation?
    /// Accuracy of that fix (meters), if it had one.
    public let accuracy: Double?
    /// When this membership shared its device with the group (its sharing periods).
    public let windows: HistoryWindows
    /// The device's battery level (`DeviceStatus`), percent.
    public let battery: Double?

    public init(groupID: GroupID, userID: UserID, displayName: String, deviceID: DeviceID, deviceName: String, sharing: Bool,
                latest: LastLocation?, accuracy: Double?, windows: HistoryWindows, battery: Double? = nil) {
        self.groupID = groupID
        self.userID = userID
        self.displayName = displayName
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.sharing = sharing
        self.latest = latest
        self.accuracy = accuracy
        self.windows = windows
        self.battery = battery
    }
}

/// What one read of the store says about the asking device and its groups' members.
public struct FriendsSnapshot: Sendable, Equatable {
    /// The owner's `receiveGroupLocations` setting of the asking device.
    public let receivesGroupLocations: Bool
    /// Every membership (its own included) of the groups the asking device is the device of.
    public let candidates: [FriendCandidate]

    public init(receivesGroupLocations: Bool, candidates: [FriendCandidate]) {
        self.receivesGroupLocations = receivesGroupLocations
        self.candidates = candidates
    }
}

/// One friend in the OwnTracks reply: a card, and a location when there is one to show.
public struct Friend: Sendable, Equatable {
    public let deviceID: DeviceID
    public let userID: UserID
    /// The member's display name (the card's `name`).
    public let displayName: String
    public let deviceName: String
    /// The two-character tracker id OwnTracks shows on the pin (`OwnTracksTID`).
    public let tid: String
    public let location: LastLocation?
    public let accuracy: Double?
    /// The device's battery level (percent), sent with its location only.
    public let battery: Double?
}

/// Which locations a device receives as "friends" (API.md, "Phone apps: friends in OwnTracks").
///
/// - Nothing unless the device's owner turned `receiveGroupLocations` on.
/// - Only other devices, and only of members who share in a group the asking device is in;
///   a device in several of those groups appears once.
/// - Only the latest location, and only when it was taken while that device was shared with
///   one of those groups (history visibility: a position from before joining, or from while
///   sharing was off, is never sent; the card alone is).
/// - The device's battery level goes with its location only (never with a card alone).
/// - Ordered by device id, so the reply is stable.
public enum FriendsRule {
    public static func friends(of deviceID: DeviceID, in snapshot: FriendsSnapshot) -> [Friend] {
        guard snapshot.receivesGroupLocations else { return [] }
        var byDevice: [DeviceID: [FriendCandidate]] = [:]
        for candidate in snapshot.candidates where candidate.deviceID != deviceID && candidate.sharing {
            byDevice[candidate.deviceID, default: []].append(candidate)
        }
        return byDevice.keys.sorted().compactMap { id -> Friend? in
            guard let memberships = byDevice[id], let first = memberships.first else { return nil }
            let latest = first.latest.flatMap { fix in memberships.contains { $0.windows.contains(fix.timestamp.millisecondsSince1970) } ? fix : nil }
            return Friend(deviceID: id, userID: first.userID, displayName: first.displayName, deviceName: first.deviceName,
                          tid: OwnTracksTID.of(id), location: latest, accuracy: latest == nil ? nil : first.accuracy,
                          battery: latest == nil ? nil : first.battery)
        }
    }
}

/// OwnTracks' two-character tracker id for a device: stable (a hash of the device id, not of
/// its name, so renaming changes nothing), upper-case letters and digits. Two devices may share
/// one; the app tells friends apart by their `topic`, the tid is only the pin's label.
public enum OwnTracksTID {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

    public static func of(_ deviceID: DeviceID) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
        for byte in deviceID.rawValue.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let count = UInt64(alphabet.count)
        let first = alphabet[Int(hash % count)], second = alphabet[Int((hash / count) % count)]
        return String(decoding: [first, second], as: UTF8.self)
    }
}

/// The friends reply of a device token (its one read).
public struct FriendsService: Sendable {
    let store: any FriendStore
    let directory: any DirectoryStore

    public init(store: any FriendStore, directory: any DirectoryStore) {
        self.store = store
        self.directory = directory
    }

    /// The friends `credential` (a device token) receives; `[]` when its owner did not opt in.
    public func friends(for credential: Credential) throws -> [Friend] {
        let deviceID = try PartitionRules(facts: directory).friendsReader(credential)
        guard let snapshot = try store.friendsSnapshot(deviceID: deviceID) else { return [] }
        return FriendsRule.friends(of: deviceID, in: snapshot)
    }

    /// How far back a device's reply reaches for transitions (API.md: the last 24 hours).
    public static let transitionWindow: Int64 = 24 * 3_600_000
    /// Most transitions a reply carries per group (the newest).
    public static let transitionsPerGroup = 100

    /// The place events of the other sharing members since the device's previous post, each
    /// once, as the OwnTracks reply carries them (`completion` on the store's writer thread).
    /// Only call it for a device whose owner turned `receiveGroupLocations` on (it writes).
    public func transitions(for credential: Credential, now: Int64,
                            completion: @escaping @Sendable (Result<[FriendTransition], Error>) -> Void) {
        let deviceID: DeviceID, owner: UserID
        switch credential {
        case .device(let id, let user): (deviceID, owner) = (id, user)
        default: return completion(.success([]))
        }
        store.takePlaceEvents(forDevice: deviceID, since: now - Self.transitionWindow, limit: Self.transitionsPerGroup) { result in
            completion(result.map { events in
                events.compactMap { event in
                    guard event.userID != owner, case .place(let place) = event.payload, place.deviceID != deviceID else { return nil }
                    return FriendTransition(event: place)
                }
            })
        }
    }
}

/// A friend's crossing of a place's edge, for the OwnTracks reply's `transition` message.
public struct FriendTransition: Sendable, Equatable {
    public let deviceID: DeviceID
    public let userID: UserID
    public let tid: String
    public let crossing: PlaceCrossing
    public let placeName: String
    /// ms since 1970 (the fix's time).
    public let timestamp: Int64
    public let longitude: Double
    public let latitude: Double

    public init(event: PlaceEvent) {
        deviceID = event.deviceID
        userID = event.userID
        tid = OwnTracksTID.of(event.deviceID)
        crossing = event.crossing
        placeName = event.placeName
        timestamp = event.timestamp
        longitude = event.longitude
        latitude = event.latitude
    }
}
