/// What of a group's event log its members may be served right now: a pure value that follows
/// the group's membership events, used by the live feed and `/changes` alike.
///
/// Rules (API.md): location and place events go out only for members who share right now (turning
/// sharing off hides past locations too); membership events go out to every member; redacted
/// events (their fix was deleted) never go out; a member's stream ends with their own `left` or
/// `removed` event, and every stream ends with the group's `deleted` event.
public struct GroupVisibility: Sendable, Equatable {
    /// User ids of the members who share now.
    public private(set) var sharing: Set<UserID>
    /// True once the group was deleted.
    public private(set) var isDeleted = false

    public init(sharing: Set<UserID>) { self.sharing = sharing }

    /// Follows one event of the group's log (in log order).
    public mutating func apply(_ event: GroupEvent) {
        guard let user = event.userID, let change = MembershipChange(event) else { return }
        switch change {
        case .joined(let shares): if shares { sharing.insert(user) } else { sharing.remove(user) }
        case .sharing(let on): if on { sharing.insert(user) } else { sharing.remove(user) }
        case .left, .removed: sharing.remove(user)
        case .deleted:
            sharing.removeAll()
            isDeleted = true
        case .owner: break
        }
    }

    /// Whether `event` may be served to members now.
    public func serves(_ event: GroupEvent) -> Bool {
        switch event.kind {
        case .redacted: false
        case .location, .locations, .place: event.userID.map(sharing.contains) ?? false
        case .membership: true
        }
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
