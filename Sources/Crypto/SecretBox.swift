import CSodium

/// libsodium's `crypto_secretbox` (XSalsa20 and Poly1305): authenticated encryption under a
/// 32-byte key, each message with its own 24-byte nonce.
///
/// `seal` returns `nonce || MAC || ciphertext` (the nonce first, then what
/// `crypto_secretbox_easy` writes), the layout OwnTracks' payload encryption sends in base64.
public struct SecretBox: Sendable {
    /// Key length in bytes (32).
    public static let keyBytes = 32
    /// Nonce length in bytes (24).
    public static let nonceBytes = 24
    /// Authenticator length in bytes (16).
    public static let macBytes = 16

    /// Exactly `keyBytes` bytes.
    private let key: [UInt8]

    /// A box under `key`; nil unless it is exactly `keyBytes` long.
    public init?(key: [UInt8]) {
        _ = Sodium.ready
        guard key.count == Self.keyBytes, crypto_secretbox_keybytes() == Self.keyBytes,
              crypto_secretbox_noncebytes() == Self.nonceBytes, crypto_secretbox_macbytes() == Self.macBytes else { return nil }
        self.key = key
    }

    /// `message` encrypted under a new random nonce: `nonce || MAC || ciphertext`.
    public func seal(_ message: [UInt8]) -> [UInt8] {
        seal(message, nonce: Secrets.randomBytes(Self.nonceBytes))
    }

    /// `message` encrypted under `nonce` (exactly `nonceBytes`; never reuse one with the same
    /// key): `nonce || MAC || ciphertext`. Empty for a nonce of the wrong length.
    public func seal(_ message: [UInt8], nonce: [UInt8]) -> [UInt8] {
        guard nonce.count == Self.nonceBytes else { return [] }
        var boxed = [UInt8](repeating: 0, count: Self.macBytes + message.count)
        // One spare byte, so the input is never an empty array.
        let input = message + [0]
        let rc = crypto_secretbox_easy(&boxed, input, UInt64(message.count), nonce, key)
        guard rc == 0 else { return [] }
        return nonce + boxed
    }

    /// The message of `sealed` (`nonce || MAC || ciphertext`), or nil when it is too short or
    /// its authenticator does not match (another key, or altered on the way).
    public func open(_ sealed: [UInt8]) -> [UInt8]? {
        guard sealed.count >= Self.nonceBytes + Self.macBytes else { return nil }
        let nonce = Array(sealed[..<Self.nonceBytes])
        let boxed = Array(sealed[Self.nonceBytes...])
        // One spare byte, so the output is never an empty array.
        var message = [UInt8](repeating: 0, count: boxed.count - Self.macBytes + 1)
        let rc = crypto_secretbox_open_easy(&message, boxed, UInt64(boxed.count), nonce, key)
        return rc == 0 ? Array(message.dropLast()) : nil
    }
}
