import CSodium

/// The one error type of the Crypto module.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Argon2id password hashing through libsodium's `crypto_pwhash_str`.
///
/// Stored strings are libsodium's self-describing `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, so
/// the cost can change later without breaking old hashes (verification reads it from the string).
public struct PasswordHasher: Sendable {
    /// CPU and memory cost.
    public enum Cost: String, Sendable {
        /// libsodium's interactive limits (64 MiB, 2 passes): the production default.
        case interactive
        /// libsodium's minimum limits: only for tests, where thousands of hashes are made.
        case minimal
    }

    public let cost: Cost

    public init(cost: Cost = .interactive) {
        _ = Sodium.ready
        self.cost = cost
    }

    /// A new salted hash of `password`.
    public func hash(_ password: String) throws(CryptoError) -> String {
        let (ops, mem) = cost == .interactive
            ? (fod_pwhash_opslimit_interactive(), fod_pwhash_memlimit_interactive())
            : (fod_pwhash_opslimit_min(), fod_pwhash_memlimit_min())
        var out = [CChar](repeating: 0, count: fod_pwhash_strbytes())
        let bytes = password.utf8CString
        let rc = bytes.withUnsafeBufferPointer { c in
            crypto_pwhash_str(&out, c.baseAddress!, UInt64(c.count - 1), ops, mem)
        }
        guard rc == 0 else { throw CryptoError("password hashing failed (out of memory?)") }
        let length = out.firstIndex(of: 0) ?? out.count
        return String(decoding: out[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `storedHash` (constant time in the password's content).
    public func verify(_ password: String, against storedHash: String) -> Bool {
        let bytes = password.utf8CString
        return bytes.withUnsafeBufferPointer { c in
            crypto_pwhash_str_verify(storedHash, c.baseAddress!, UInt64(c.count - 1)) == 0
        }
    }
}

/// Bearer secrets: 256 random bits, shown once, stored only as a BLAKE2b-256 hash.
public enum Secrets {
    /// `count` bytes from the operating system's CSPRNG (libsodium `randombytes_buf`).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        _ = Sodium.ready
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }

    /// A new token: `prefix` followed by 32 random bytes in unpadded base64url (43 chars).
    public static func newToken(prefix: String) -> String {
        prefix + Base64URL.encode(randomBytes(32))
    }

    /// A new opaque, URL-safe id: `prefix` followed by 16 random bytes in base64url (22 chars).
    public static func newID(prefix: String) -> String {
        prefix + Base64URL.encode(randomBytes(16))
    }

    /// The stored form of a token: BLAKE2b with a 32-byte output, as lower-case hex.
    public static func tokenHash(_ token: String) -> String {
        _ = Sodium.ready
        var out = [UInt8](repeating: 0, count: 32)
        let bytes = Array(token.utf8)
        _ = crypto_generichash(&out, 32, bytes, UInt64(bytes.count), nil, 0)
        return hex(out)
    }

    /// BLAKE2b with a 32-byte output of `bytes`: a key that identifies them (collisions are
    /// out of reach, adversaries included).
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        _ = Sodium.ready
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, bytes, UInt64(bytes.count), nil, 0)
        return out
    }

    /// Constant-time equality of two byte strings of equal length (false when lengths differ).
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return sodium_memcmp(a, b, a.count) == 0
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Unpadded base64url (RFC 4648 §5).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url; nil for any other character or an impossible length.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            switch c {
            case 65...90: values.append(c - 65)
            case 97...122: values.append(c - 71)
            case 48...57: values.append(c + 4)
            case 45: values.append(62)
            case 95: values.append(63)
            default: return nil
            }
        }
        if values.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let chunk = values[i..<min(i + 4, values.count)]
            var n: UInt32 = 0
            for (k, v) in chunk.enumerated() { n |= UInt32(v) << (18 - 6 * UInt32(k)) }
            out.append(UInt8(n >> 16 & 255))
            if chunk.count > 2 { out.append(UInt8(n >> 8 & 255)) }
            if chunk.count > 3 { out.append(UInt8(n & 255)) }
            i += 4
        }
        return out
    }
}

/// libsodium must be initialised once before use; `sodium_init` is idempotent and thread-safe.
enum Sodium {
    static let ready: Bool = sodium_init() >= 0
}
