/// What of a group's event log its members may be served right now: a pure value that follows
/// the group's membership events, used by the live feed and `/changes` alike.
///
/// Rules (API.md): an event about a device's positions (`location`, `locations`, `place`) goes
/// out only while that device is the device of a member who shares now (turning sharing off
/// hides past locations too), and only for fix times inside the device's sharing periods with
/// the group — the same windows the history API reads, so a member who left and rejoined (with
/// the same phone or another) never has the former membership's positions served again.
/// Membership events go out to every member; redacted events (their fix was deleted) never go
/// out; a member's stream ends with their own `left` or `removed` event, and every stream ends
/// with the group's `deleted` event.
public struct GroupVisibility: Sendable, Equatable {
    /// One membership as visibility needs it.
    public struct Member: Sendable, Equatable {
        /// The device the member shares with the group.
        public var deviceID: DeviceID
        /// Whether the member shares now.
        public var shares: Bool
        /// When that device was shared with the group (fix times, ms). A value read from the
        /// store has the stored sharing periods; after a join or a switch-on followed live
        /// (`apply`) it is `.all`, because the log's writer logs only fixes inside the
        /// membership's periods of the moment, so every later event of it is inside them.
        public var windows: HistoryWindows

        public init(deviceID: DeviceID, shares: Bool, windows: HistoryWindows) {
            self.deviceID = deviceID
            self.shares = shares
            self.windows = windows
        }
    }

    /// Every member of the group, by user id.
    public private(set) var members: [UserID: Member]
    /// True once the group was deleted.
    public private(set) var isDeleted = false

    public init(members: [UserID: Member]) { self.members = members }

    /// No member (a group whose state is not known yet serves no positions).
    public static let empty = GroupVisibility(members: [:])

    /// User ids of the members who share now.
    public var sharing: Set<UserID> { Set(members.compactMap { $0.value.shares ? $0.key : nil }) }

    /// Follows one event of the group's log (in log order, as it is committed).
    public mutating func apply(_ event: GroupEvent) {
        guard case .membership(let membership) = event.payload else { return }
        let user = membership.userID
        switch membership.change {
        case .joined(let shares):
            guard let device = membership.deviceID else {
                members[user] = nil
                return
            }
            members[user] = Member(deviceID: device, shares: shares, windows: shares ? .all : .none)
        case .sharing(let on):
            guard var member = members[user] else { return }
            member.shares = on
            if on { member.windows = .all }
            members[user] = member
        case .left, .removed: members[user] = nil
        case .deleted:
            members.removeAll()
            isDeleted = true
        case .owner, .renamed: break
        }
    }

    /// Whether `event` may be served to members now.
    public func serves(_ event: GroupEvent) -> Bool {
        switch event.kind {
        case .redacted: false
        case .membership: true
        case .location, .locations, .place: showsVisiblePositions(event)
        }
    }

    /// A position event: its device is the sharing member's device here, and the fix times it
    /// shows are inside that device's windows.
    private func showsVisiblePositions(_ event: GroupEvent) -> Bool {
        guard let user = event.userID, let member = members[user], member.shares,
              event.payload.deviceID == member.deviceID else { return false }
        return member.windows.isAll || event.payload.fixTimes.allSatisfy(member.windows.contains)
    }

    /// Both would serve `event`: for a replay judged by a snapshot read from the store and by a
    /// channel's state that followed later changes live.
    public func serves(_ event: GroupEvent, alsoUnder other: GroupVisibility) -> Bool {
        serves(event) && other.serves(event)
    }

    /// Whether `event` is the last one the stream of member `reader` gets.
    public static func ends(streamOf reader: UserID, with event: GroupEvent) -> Bool {
        switch MembershipChange(event) {
        case .deleted: true
        case .left, .removed: event.userID == reader
        default: false
        }
    }
}

extension GroupVisibility {
    /// One row of a store's read of a group's memberships joined with their sharing periods
    /// (`start`/`end` nil for a membership without a period; `end` nil for an open period).
    public struct MembershipRow: Sendable {
        public let userID: UserID
        public let deviceID: DeviceID
        public let shares: Bool
        public let start: Int64?
        public let end: Int64?

        public init(userID: UserID, deviceID: DeviceID, shares: Bool, start: Int64?, end: Int64?) {
            self.userID = userID
            self.deviceID = deviceID
            self.shares = shares
            self.start = start
            self.end = end
        }
    }

    /// The visibility of a group whose memberships and periods read as `rows` (periods of the
    /// membership's own device only).
    public init(rows: [MembershipRow]) {
        var periods: [UserID: [(start: Int64, end: Int64?)]] = [:]
        var devices: [UserID: (DeviceID, Bool)] = [:]
        for row in rows {
            devices[row.userID] = (row.deviceID, row.shares)
            if let start = row.start { periods[row.userID, default: []].append((start, row.end)) }
        }
        self.init(members: devices.reduce(into: [:]) { members, entry in
            members[entry.key] = Member(deviceID: entry.value.0, shares: entry.value.1,
                                        windows: HistoryWindows(periods: periods[entry.key] ?? []))
        })
    }
}
