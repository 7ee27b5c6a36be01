import JSONCore
import LocationFormats
import Synchronization
import Timestamps
import Tracking

/// Builds users, devices and groups in a store through its own ports, for the contracts below.
/// Times are milliseconds since 1970; the fixtures live around `Fixtures.t0` (2026-11-01).
public enum Fixtures {
    public static let t0: Int64 = 1_793_491_200_000

    /// `milliseconds` since 1970 as a `Timestamp`.
    public static func time(_ milliseconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: milliseconds) }

    /// A user with a first session.
    @discardableResult
    public static func user(_ store: any TrackingStore, _ name: String, createdAt: Int64 = t0) async throws -> User {
        let user = User(id: .generate(), email: "\(name)-\(UserID.generate().rawValue.lowercased())@example.org",
                        displayName: name, createdAt: time(createdAt))
        let session = Session(id: .generate(), userID: user.id, createdAt: time(createdAt), lastUsedAt: time(createdAt), client: nil)
        try await store.createUser(user, passwordHash: "hash-\(name)", session: session, tokenHash: "token-\(session.id.rawValue)")
        return user
    }

    /// A device of `owner`, token hash `device-token-<id>`; devices are listed by `createdAt`.
    public static func device(_ store: any TrackingStore, owner: UserID, name: String = "phone", createdAt: Int64 = t0) async throws -> Device {
        let device = Device(id: .generate(), ownerID: owner, name: name, platformID: nil, createdAt: time(createdAt))
        try await store.writeDirectory { tx in try tx.insertDevice(device, tokenHash: "device-token-\(device.id.rawValue)") }
        return device
    }

    /// A group owned by the first member; each member joins with their device at `joinedAt`
    /// (in order, one millisecond apart), sharing as given, with a sharing period opened when
    /// sharing. Returns the group's id.
    public static func group(_ store: any TrackingStore, members: [(user: UserID, device: DeviceID, share: Bool)],
                      joinedAt: Int64 = t0) async throws -> GroupID {
        let group = GroupRecord(id: .generate(), name: "family", ownerID: members[0].user, createdAt: time(joinedAt))
        try await store.writeDirectory { tx in
            try tx.insertGroup(group)
            for (offset, member) in members.enumerated() {
                let time = joinedAt + Int64(offset)
                try tx.insertMembership(Membership(groupID: group.id, userID: member.user, deviceID: member.device,
                                                   shareLocation: member.share), at: time)
                if member.share {
                    try tx.openSharingPeriod(groupID: group.id, userID: member.user, deviceID: member.device, at: time)
                }
            }
        }
        return group.id
    }

    /// A fix at (`longitude`, `latitude`) at `t0 + offset` ms.
    public static func fix(_ offset: Int64, longitude: Double = 2.35, latitude: Double = 48.85, id: String? = nil) -> Fix {
        Fix(longitude: longitude, latitude: latitude, timestamp: t0 + offset, accuracy: 5, clientID: id)
    }

    /// Appends `fixes` to `device` with the standard event rule.
    @discardableResult
    public static func append(_ store: any TrackingStore, _ device: DeviceID, _ fixes: [Fix],
                       rule: LocationEventRule = .standard) async throws -> IngestOutcome {
        try await store.append(deviceID: device, fixes: fixes, events: rule) { _ in }
    }

    /// Every event of `group` in the log, oldest first.
    public static func events(_ store: any TrackingStore, _ group: GroupID) throws -> [GroupEvent] {
        try store.events(groupID: group, after: .start, limit: 100_000)
    }
}

/// A user, their device, and a group they share it with (the common starting point).
public struct SharingWorld: Sendable {
    public let owner: User
    public let device: Device
    public let viewer: User
    public let viewerDevice: Device
    public let group: GroupID

    public static func make(_ store: any TrackingStore, viewerShares: Bool = false) async throws -> SharingWorld {
        let owner = try await Fixtures.user(store, "ann")
        let device = try await Fixtures.device(store, owner: owner.id)
        let viewer = try await Fixtures.user(store, "bob")
        let viewerDevice = try await Fixtures.device(store, owner: viewer.id)
        let group = try await Fixtures.group(store, members: [(owner.id, device.id, true), (viewer.id, viewerDevice.id, viewerShares)])
        return SharingWorld(owner: owner, device: device, viewer: viewer, viewerDevice: viewerDevice, group: group)
    }
}

/// Values appended from any thread (commit callbacks), read back in the order they came.
public final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    public init() {}
    public func append(_ new: [Value]) { values.withLock { $0 += new } }
    public var all: [Value] { values.withLock { $0 } }
}

extension Fixtures {
    /// A new account of `name` (a password hash anyone could sign in with), signed in with
    /// session token hash `session-<name>`.
    public static func account(_ name: String, admin: Bool = false, createdAt: Int64 = t0) -> NewAccount {
        let user = User(id: .generate(), email: "\(name)@example.org", displayName: name, createdAt: time(createdAt), isAdmin: admin)
        let session = Session(id: .generate(), userID: user.id, createdAt: user.createdAt, lastUsedAt: user.createdAt, client: nil)
        return NewAccount(user: user, passwordHash: "$argon2id$hash-\(name)", session: session, sessionTokenHash: "session-\(name)")
    }

    /// The code of the `TrackingError` that `body` throws ("none" when it throws none).
    public static func refused(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "none"
        } catch let error as TrackingError {
            return error.code.rawValue
        } catch {
            return "unexpected: \(error)"
        }
    }

    /// A circle of 200 m around (`longitude`, `latitude`).
    public static func circle(_ group: GroupID, by user: UserID, longitude: Double, latitude: Double, name: String) -> Place {
        Place(id: .generate(), groupID: group, name: name,
              geometry: .object(["type": .string("Point"), "coordinates": .array([.number(JSONNumber(longitude)), .number(JSONNumber(latitude))])]),
              radiusMeters: 200, createdBy: user, createdAt: time(t0), updatedAt: time(t0))
    }
}
