/// A partition name `kind=id`: every object lives in exactly one.
///
/// `user=<userId>` holds a profile, memberships and invitations; `device=<deviceId>` a device
/// and its locations; `group=<groupId>` a group, its members and their shared locations.
public enum Partition: Sendable, Hashable, CustomStringConvertible {
    case user(UserID)
    case device(DeviceID)
    case group(GroupID)

    /// Parses `user=…`, `device=…`, `group=…`; nil for anything else (including an empty id).
    public init?(_ text: String) {
        // By scalar, not Character: "=" followed by a combining mark is one Character.
        let scalars = text.unicodeScalars
        guard let equals = scalars.firstIndex(of: "=") else { return nil }
        let kind = String(scalars[..<equals])
        let id = String(scalars[scalars.index(after: equals)...])
        guard !id.isEmpty, !id.unicodeScalars.contains("=") else { return nil }
        switch kind {
        case "user": self = .user(UserID(id))
        case "device": self = .device(DeviceID(id))
        case "group": self = .group(GroupID(id))
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .user(let id): "user=\(id)"
        case .device(let id): "device=\(id)"
        case .group(let id): "group=\(id)"
        }
    }
}

/// Who is calling: nobody, a signed-in user, a device with its own token, or the holder of a
/// share link.
///
/// The token kinds carry different rights and are never interchangeable.
public enum Credential: Sendable, Equatable {
    case anonymous
    case user(userID: UserID)
    case device(deviceID: DeviceID, ownerID: UserID)
    /// A share link's token (API.md, "Share links"): reads device `deviceID`'s latest location
    /// and its fixes timestamped from `since` (ms since 1970) on, and nothing else. It exists
    /// only while the link is neither expired nor revoked (`ShareService` resolves it; open
    /// streams end at expiry or revocation).
    case share(shareID: ShareID, deviceID: DeviceID, since: Int64)

    /// The user id of a user credential (nil for devices and anonymous callers).
    public var userID: UserID? {
        if case .user(let id) = self { return id }
        return nil
    }
}
