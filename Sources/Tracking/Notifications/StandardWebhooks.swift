import Crypto

/// Standard Webhooks signing (https://www.standardwebhooks.com): `v1,<base64 HMAC-SHA256 of
/// "<id>.<timestamp>.<body>">` under the secret's key (the base64 after `whsec_`).
public enum StandardWebhooks {
    public static let secretPrefix = "whsec_"

    /// A new secret: `whsec_` and the base64 of 32 random bytes.
    public static func newSecret() -> String { secretPrefix + StandardBase64.encode(Secrets.randomBytes(32)) }

    public static func signature(secret: String, id: String, timestamp: Int64, body: [UInt8]) -> String? {
        guard secret.hasPrefix(secretPrefix), let key = StandardBase64.decode(String(secret.dropFirst(secretPrefix.count))) else { return nil }
        let message = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + StandardBase64.encode(MessageAuthentication.hmacSHA256(key: key, message: message))
    }
}
