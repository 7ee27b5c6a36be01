import Crypto
import Timestamps

/// Share links: a live location of one device for someone without an account (API.md, "Share
/// links"). The device's owner creates, lists, renews and revokes them; the token alone reads
/// the device's latest location and its fixes since the link was made, until it expires.
///
/// Invariants: a token is 256 random bits, shown once, stored only as its hash; unknown,
/// expired and revoked tokens fail alike (404, same body); failed lookups are limited per client
/// address (429), so guessing costs the guesser, never the link's holders elsewhere.
public final class ShareService: Sendable {
    /// Share tokens start with this (user tokens `fodu_`, device tokens `fodd_`).
    public static let tokenPrefix = "fods_"

    /// The share-link rules that are settings.
    public struct Policy: Sendable {
        /// Lifetime of a link when the request names none (seconds).
        public var defaultLifetimeSeconds: Int64 = 3_600
        /// Lifetimes a request may ask for (seconds): a minute to a week.
        public var lifetimeSeconds: ClosedRange<Int64> = 60...604_800
        /// Links one device may have at once (expired ones included, until they are purged).
        public var linksPerDevice = 50
        /// Expired links stay listed (and renewable) this long, then are deleted (ms; 30 days).
        public var expiredKeptMilliseconds: Int64 = 30 * 86_400_000
        /// Most fixes a link's track holds (the newest are kept).
        public var trackLimit = 10_000
        /// Failed token lookups one client address may make per window before it gets 429.
        public var failedLookupsPerAddress = 30
        /// The window of `failedLookupsPerAddress` (ms; 10 minutes).
        public var failedLookupWindowMilliseconds: Int64 = 600_000
        /// Open live streams one link may have at once (429 beyond).
        public var streamsPerLink = 16
        public init() {}
    }

    let store: any ShareStore
    let directory: any DirectoryStore
    public let policy: Policy
    let limits: any LimitCounters
    let failedLookups: WindowLimit

    /// - Parameter limits: where failed token lookups are counted (the store's counters).
    public init(store: any ShareStore, directory: any DirectoryStore, policy: Policy = Policy(),
                limits: any LimitCounters = LocalLimitCounters()) {
        self.store = store
        self.directory = directory
        self.policy = policy
        self.limits = limits
        self.failedLookups = WindowLimit(scope: "failed-share-lookups", limit: policy.failedLookupsPerAddress,
                                         windowMilliseconds: policy.failedLookupWindowMilliseconds)
    }

    // MARK: The owner's side

    /// A new link to `deviceID` (owned by `ownerID`), valid `lifetimeSeconds` (default
    /// `Policy.defaultLifetimeSeconds`); returns it with its token, shown this once.
    /// - Throws: 404 when the device is not the caller's, 400 for a bad name or lifetime, 409
    ///   `too_many_share_links` past `linksPerDevice`.
    public func create(deviceID: DeviceID, ownerID: UserID, name rawName: String?, lifetimeSeconds: Int64?,
                       now: Int64 = Timestamp.nowMilliseconds()) async throws -> (ShareLink, String) {
        let name = try rawName.map { try Validate.name($0, field: "name") }
        let created = Timestamp(millisecondsSince1970: now)
        let expiresAt = created + .seconds(try lifetime(lifetimeSeconds))
        let share = ShareLink(id: ShareID.generate(), deviceID: deviceID, name: name, createdAt: created, since: created, expiresAt: expiresAt)
        let token = Secrets.newToken(prefix: Self.tokenPrefix)
        let hash = Secrets.tokenHash(token)
        let policy = self.policy
        try await store.writeShares { tx in
            try Self.requireOwner(deviceID, ownerID, tx)
            _ = try tx.deleteExpiredShares(deviceID: deviceID, before: now - policy.expiredKeptMilliseconds)
            guard try tx.shares(deviceID: deviceID).count < policy.linksPerDevice else {
                throw TrackingError.conflict("a device may have at most \(policy.linksPerDevice) share links; delete some first",
                                             code: .tooManyShareLinks)
            }
            try tx.insertShare(share, tokenHash: hash)
        }
        return (share, token)
    }

    /// The device's links, newest first (404 unless the caller owns the device).
    public func list(deviceID: DeviceID, ownerID: UserID) throws -> [ShareLink] {
        try store.readShares { tx in
            try Self.requireOwner(deviceID, ownerID, tx)
            return try tx.shares(deviceID: deviceID)
        }
    }

    /// Revokes the link: it stops working at once and its open streams end (404 when it is not
    /// one of the caller's device's links).
    public func revoke(deviceID: DeviceID, shareID: ShareID, ownerID: UserID) async throws {
        let deleted = try await store.writeShares { tx in
            try Self.requireOwner(deviceID, ownerID, tx)
            return try tx.deleteShare(id: shareID, deviceID: deviceID)
        }
        guard deleted else { throw TrackingError.notFound("share link") }   // the store announces the revocation
    }

    /// Shares the link again: it works for `lifetimeSeconds` from now, whatever its old expiry
    /// (re-sharing never keeps a stale one). A link that had expired starts its track afresh,
    /// so the time it was off is never shown; an active one keeps its track.
    public func renew(deviceID: DeviceID, shareID: ShareID, ownerID: UserID, lifetimeSeconds: Int64?,
                      now: Int64 = Timestamp.nowMilliseconds()) async throws -> ShareLink {
        let renewedAt = Timestamp(millisecondsSince1970: now)
        let expiresAt = renewedAt + .seconds(try lifetime(lifetimeSeconds))
        let renewed = try await store.writeShares { tx -> ShareLink in
            try Self.requireOwner(deviceID, ownerID, tx)
            guard var share = try tx.shares(deviceID: deviceID).first(where: { $0.id == shareID }) else {
                throw TrackingError.notFound("share link")
            }
            if !share.isActive(at: renewedAt) { share.since = renewedAt }
            share.expiresAt = expiresAt
            try tx.updateShare(share)
            return share
        }
        return renewed
    }

    // MARK: The holder's side

    /// The link a token opens, if it is active at `now`.
    /// - Throws: 429 when `clientAddress` failed too many lookups lately; 404 `not_found`, the
    ///   same for an unknown, expired or revoked token (each counts as a failed lookup).
    public func link(forToken token: String, clientAddress: String, now: Int64 = Timestamp.nowMilliseconds()) throws -> ShareLink {
        if let wait = try limits.waitTime(failedLookups, key: clientAddress, now: now) { throw TrackingError.rateLimited(retryAfter: wait) }
        if Self.looksLikeToken(token), let share = try store.readShares({ try $0.share(tokenHash: Secrets.tokenHash(token)) }),
           share.isActive(at: Timestamp(millisecondsSince1970: now)) {
            return share
        }
        _ = try limits.attempt(failedLookups, key: clientAddress, now: now)
        throw Self.unknownLink
    }

    /// What every unknown, expired or revoked token gets.
    public static var unknownLink: TrackingError { .notFound("share link") }

    /// Counts one view of the link (its page or its document).
    public func countView(_ id: ShareID) async throws {
        try await store.writeShares { tx in try tx.addShareView(id: id) }
    }

    /// The link's document for its holder: the device's latest location and its track since
    /// the link's `since`, as `PartitionRules` allows a share credential.
    public func view(of share: ShareLink) throws -> SharedView {
        let credential = share.credential
        let windows = try PartitionRules(facts: directory).historyWindows(credential, deviceID: share.deviceID)
        let since = windows.intervals.first?.lowerBound ?? Int64.max
        let limit = policy.trackLimit
        let now = Timestamp.now
        return try store.readShares { tx in
            // Read again in this snapshot: a link revoked or expired since its token was
            // resolved shows nothing (a stream registered before this read is ended by the
            // revocation's notice instead).
            guard let current = try tx.shares(deviceID: share.deviceID).first(where: { $0.id == share.id }), current.isActive(at: now),
                  let device = try tx.shareableDevice(id: share.deviceID) else { throw Self.unknownLink }
            return SharedView(shareID: share.id, deviceName: device.name, expiresAt: current.expiresAt,
                              location: try tx.latestFix(deviceID: share.deviceID),
                              track: try tx.track(deviceID: share.deviceID, since: since, limit: limit))
        }
    }

    // MARK: Rules

    func lifetime(_ seconds: Int64?) throws -> Int64 {
        let value = seconds ?? policy.defaultLifetimeSeconds
        guard policy.lifetimeSeconds.contains(value) else {
            throw TrackingError.invalid("expiresIn must be \(policy.lifetimeSeconds.lowerBound) to \(policy.lifetimeSeconds.upperBound) seconds",
                                        code: .invalidExpiry)
        }
        return value
    }

    /// Whether `token` has the shape of a share token (prefix and 43 base64url characters), so
    /// nothing else is ever hashed and looked up.
    static func looksLikeToken(_ token: String) -> Bool {
        guard token.hasPrefix(tokenPrefix), token.utf8.count == tokenPrefix.utf8.count + 43 else { return false }
        return token.utf8.dropFirst(tokenPrefix.utf8.count).allSatisfy { c in
            (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 95
        }
    }

    static func requireOwner(_ deviceID: DeviceID, _ ownerID: UserID, _ tx: any ShareTransaction) throws {
        guard try tx.shareableDevice(id: deviceID)?.ownerID == ownerID else { throw TrackingError.notFound("device") }
    }
}
