import CSodium

/// HMAC-SHA256 (RFC 2104) over libsodium, for signing outgoing webhooks.
public enum MessageAuthentication {
    /// The 32-byte HMAC-SHA256 of `message` under `key` (any length).
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        _ = Sodium.ready
        var state = crypto_auth_hmacsha256_state()
        var mac = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        // A zero-length buffer may have no base address; libsodium reads nothing then.
        let keyBytes = key.isEmpty ? [0] : key, keyCount = key.count
        keyBytes.withUnsafeBufferPointer { k in
            if let base = k.baseAddress { _ = crypto_auth_hmacsha256_init(&state, base, keyCount) }
        }
        let messageBytes = message.isEmpty ? [0] : message, messageCount = message.count
        messageBytes.withUnsafeBufferPointer { m in
            if let base = m.baseAddress { _ = crypto_auth_hmacsha256_update(&state, base, UInt64(messageCount)) }
        }
        _ = crypto_auth_hmacsha256_final(&state, &mac)
        return mac
    }
}

/// Padded base64 with the standard alphabet (RFC 4648 §4).
public enum StandardBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes padded (or unpadded) standard base64; nil for any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0 else { return nil }
            switch c {
            case 65...90: values.append(c - 65)
            case 97...122: values.append(c - 71)
            case 48...57: values.append(c + 4)
            case UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "/"): values.append(63)
            default: return nil
            }
        }
        guard padding <= 2, values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i < values.count {
            let chunk = values[i..<min(i + 4, values.count)]
            var n: UInt32 = 0
            for (offset, value) in chunk.enumerated() { n |= UInt32(value) << (18 - 6 * UInt32(offset)) }
            out.append(UInt8(n >> 16 & 0xff))
            if chunk.count > 2 { out.append(UInt8(n >> 8 & 0xff)) }
            if chunk.count > 3 { out.append(UInt8(n & 0xff)) }
            i += 4
        }
        return out
    }
}
