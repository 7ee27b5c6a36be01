/// Who may make an account with `POST /v1/users` (`fod serve --signup`).
public enum SignUpPolicy: String, Sendable, CaseIterable {
    /// Anyone (only rate-limited).
    case open
    /// Only an email that holds a pending group invitation, or whoever brings an unused invite
    /// code an administrator made; others get 403 `signup_closed`.
    case invite
    /// Nobody: accounts are made only by `fod user add`.
    case closed

    /// The policy in force when the setting is `configured` (nil: the default, `open` while the
    /// server has no account anyone can sign in to, `invite` from its first account on).
    public static func effective(_ configured: SignUpPolicy?, hasAccounts: Bool) -> SignUpPolicy {
        configured ?? (hasAccounts ? .invite : .open)
    }

    /// Whether a group invitation to an email without an account is kept until that email has
    /// an account (true whenever sign-up is not open to anyone: it is then how people get in).
    public var keepsInvitationsByEmail: Bool { self != .open }
}

/// What a new account needs to be admitted, checked by the store in the transaction that makes
/// it (so two sign-ups cannot both pass a stale check, nor both use one invite code).
public enum SignUpAdmission: Sendable, Equatable {
    /// Anyone: `--signup open`, and accounts an administrator adds (`fod user add`).
    case anyone
    /// The default setting: the first account anyone can sign in to is admitted (and becomes
    /// the administrator); later ones as for `invited`.
    case firstOrInvited(inviteCodeHash: String?)
    /// `--signup invite`: an email with a pending invitation by email
    /// (`AccountAdministrationStore.emailInvitationDays` old at most), or the hash of an unused,
    /// unexpired invite code, which the account uses up.
    case invited(inviteCodeHash: String?)
}

/// The error of a refused sign-up (403 `signup_closed`).
extension TrackingError {
    public static func signUpClosed(_ policy: SignUpPolicy) -> TrackingError {
        let message = policy == .closed
            ? "sign-up is closed on this server: an administrator makes accounts"
            : "sign-up on this server needs an invitation: a group invitation to this email, or an invite code from an administrator"
        return TrackingError(.forbidden, code: .signupClosed, message: message)
    }
}
