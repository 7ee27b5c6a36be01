extension ErrorCode {
    // MARK: Notifications

    /// A channel's URL is not an `http`/`https` URL the server can send to (400).
    public static let invalidDestination = ErrorCode("invalid_destination")
    /// A channel's URL resolves to a loopback, private, link-local, multicast or reserved
    /// address and the server does not allow private destinations (422).
    public static let destinationNotAllowed = ErrorCode("destination_not_allowed")
    /// The user already has the most channels a user may (409).
    public static let tooManyChannels = ErrorCode("too_many_channels")
    /// The user already has the most alerts a user may have in one group (409).
    public static let tooManyAlerts = ErrorCode("too_many_alerts")

    static let notifications: [ErrorCode] = [invalidDestination, destinationNotAllowed, tooManyChannels, tooManyAlerts]
}
