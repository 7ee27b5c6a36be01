// Codes of the domain: credentials and accounts, groups, devices, places, share links, and the
// server's own state.

extension ErrorCode {
    // MARK: Credentials and accounts

    /// No credential, or one that is not (or no longer) valid (401).
    public static let unauthenticated = ErrorCode("unauthenticated")
    /// Sign-in with a wrong email or password (401).
    public static let invalidCredentials = ErrorCode("invalid_credentials")
    /// A valid credential of the wrong kind, e.g. a device token where a user token is needed (403).
    public static let wrongCredential = ErrorCode("wrong_credential")
    /// A valid credential without the right; the message names the partition (403).
    public static let forbidden = ErrorCode("forbidden")
    /// Too many attempts or requests; `Retry-After` says when to try again (429).
    public static let rateLimited = ErrorCode("rate_limited")
    /// Sign-up with an email that already has an account (409).
    public static let emailTaken = ErrorCode("email_taken")
    /// An email that does not look like `name@example.org` or is over 254 bytes (400).
    public static let invalidEmail = ErrorCode("invalid_email")
    /// A new password shorter than 8 or longer than 256 characters (400).
    public static let invalidPassword = ErrorCode("invalid_password")
    /// A sign-up the server's sign-up policy refuses: closed, or invite-only without an
    /// invitation or a valid invite code (403).
    public static let signupClosed = ErrorCode("signup_closed")
    /// A sign-in to an account an administrator disabled, after a correct password (403).
    public static let accountDisabled = ErrorCode("account_disabled")
    /// A display, device, group or place name that is empty, too long or has control characters (400).
    public static let invalidName = ErrorCode("invalid_name")

    static let credentials: [ErrorCode] = [
        unauthenticated, invalidCredentials, wrongCredential, forbidden, rateLimited, emailTaken, invalidEmail,
        invalidPassword, invalidName, signupClosed, accountDisabled,
    ]

    // MARK: Groups

    /// The user already belongs to the most groups a user may (409).
    public static let tooManyGroups = ErrorCode("too_many_groups")
    /// A group handed over to someone who is not a member (409).
    public static let notAMember = ErrorCode("not_a_member")
    /// An invitation for someone who is already a member (409).
    public static let alreadyMember = ErrorCode("already_member")
    /// An invitation for someone who is already invited (409).
    public static let alreadyInvited = ErrorCode("already_invited")
    /// The group already has the most members a group may (409).
    public static let groupFull = ErrorCode("group_full")
    /// The owner tried to leave their own group (409).
    public static let ownerCannotLeave = ErrorCode("owner_cannot_leave")

    static let groups: [ErrorCode] = [tooManyGroups, notAMember, alreadyMember, alreadyInvited, groupFull, ownerCannotLeave]

    // MARK: Devices

    /// The user already has the most devices a user may (409).
    public static let tooManyDevices = ErrorCode("too_many_devices")
    /// A device removed while it is its owner's membership device in a group they own (409).
    public static let deviceInUse = ErrorCode("device_in_use")

    static let devices: [ErrorCode] = [tooManyDevices, deviceInUse]

    // MARK: Places

    /// The group already has the most places a group may (409).
    public static let tooManyPlaces = ErrorCode("too_many_places")
    /// A place change that names none of name, geometry, radius (400).
    public static let emptyChange = ErrorCode("empty_change")
    /// A place polygon with more positions than allowed (400); a geo query geometry too large is
    /// GeoQuery's code of the same text (422).
    public static let tooManyVertices = ErrorCode("too_many_vertices")
    /// A Point place without a usable `radius`, or a `radius` on a Polygon (400); a radius out of
    /// 25–50000 m (422).
    public static let invalidRadius = ErrorCode("invalid_radius")
    /// A place geometry other than a Point with a radius or a Polygon (422).
    public static let unsupportedGeometry = ErrorCode("unsupported_geometry")

    static let places: [ErrorCode] = [tooManyPlaces, emptyChange, tooManyVertices, invalidRadius, unsupportedGeometry]

    // MARK: Share links

    /// The device already has the most share links a device may (409).
    public static let tooManyShareLinks = ErrorCode("too_many_share_links")
    /// `expiresIn` outside the allowed lifetime (400).
    public static let invalidExpiry = ErrorCode("invalid_expiry")
    /// Too many live streams of one share link are open at once (429 with `Retry-After`).
    public static let tooManyStreams = ErrorCode("too_many_streams")

    static let shareLinks: [ErrorCode] = [tooManyShareLinks, invalidExpiry, tooManyStreams]

    // MARK: The server's state

    /// The request conflicts with the current state, without a more specific code (409): the
    /// default of `TrackingError.conflict`.
    public static let conflict = ErrorCode("conflict")
    /// Too much of this work is in progress, or the database is busy (503 with `Retry-After`).
    public static let busy = ErrorCode("busy")
    /// The server's storage is full; nothing was saved (503 with `Retry-After`).
    public static let storageFull = ErrorCode("storage_full")
    /// The database is read-only at the moment; nothing was saved (503 with `Retry-After`).
    public static let readOnly = ErrorCode("read_only")
    /// The storage could not be written for another reason (503 with `Retry-After`).
    public static let storageUnavailable = ErrorCode("storage_unavailable")
    /// The server failed; never caused by input (500).
    public static let internalError = ErrorCode("internal_error")

    static let server: [ErrorCode] = [conflict, busy, storageFull, readOnly, storageUnavailable, internalError]
}
