import Crypto
import JSONCore
import LocationFormats
import Tracking

/// OwnTracks payload encryption, as the apps and the OwnTracks Recorder do it: libsodium's
/// `crypto_secretbox` under a key that is the passphrase's UTF-8 bytes, cut or zero-padded to
/// 32 bytes; on the wire `{"_type": "encrypted", "data": base64(nonce || MAC || ciphertext)}`.
enum OwnTracksEncryption {
    /// The box of a passphrase (its first 32 bytes of UTF-8, zero-padded).
    static func box(passphrase: String) -> SecretBox? {
        let bytes = Array(passphrase.utf8.prefix(SecretBox.keyBytes))
        return SecretBox(key: bytes + [UInt8](repeating: 0, count: SecretBox.keyBytes - bytes.count))
    }

    /// `message` sealed as one `encrypted` message.
    static func seal(_ message: [UInt8], with box: SecretBox) -> [UInt8] {
        JSONValue.object(["_type": "encrypted", "data": .string(Base64.encodeStandard(box.seal(message)))]).serialized()
    }

    /// The plaintext of an `encrypted` message's `data`; nil when it is not standard base64 of
    /// nonce, MAC and ciphertext that opens with `box`.
    static func open(_ data: String, with box: SecretBox) -> [UInt8]? {
        Base64.decodeStandard(data).flatMap(box.open)
    }
}

/// An OwnTracks request body, read for the ingest: plain, or opened with the device's secret.
/// Never fails on what the body holds (`AppPayload.unusable` says what cannot be stored).
struct OwnTracksBody {
    /// What to store and record.
    let payload: AppPayload
    /// Set when the body was encrypted and opened: the reply is sealed with it (a phone that
    /// encrypts can open; one that does not would fail on a sealed reply and send again).
    let replyBox: SecretBox?

    /// Reads `body`; `secret` is asked for the device's passphrase only when the body is encrypted.
    static func read(_ body: [UInt8], secret: () throws -> String?, now: Int64, rules: FixRules) throws -> OwnTracksBody {
        guard !body.isEmpty else { return OwnTracksBody(payload: AppPayload(), replyBox: nil) }
        let message: JSONValue
        do {
            message = try JSONParser.parse(body)
        } catch {
            return OwnTracksBody(payload: AppPayload(notJSON: body, error), replyBox: nil)
        }
        let data: String
        switch OwnTracksFormat.read(message, now: now, rules: rules) {
        case .plain(let payload): return OwnTracksBody(payload: payload, replyBox: nil)
        case .encrypted(let encrypted): data = encrypted
        }
        guard let passphrase = try secret(), let box = OwnTracksEncryption.box(passphrase: passphrase) else {
            return OwnTracksBody(payload: AppPayload(unusable: [UnusableMessage(error: FixError(
                code: .encryptionNotConfigured,
                message: "the phone encrypts its messages, but the device has no owntracksSecret: set the phone's passphrase with PATCH /v1/devices/{id}"),
                json: message)]), replyBox: nil)
        }
        guard let plaintext = OwnTracksEncryption.open(data, with: box) else {
            return OwnTracksBody(payload: AppPayload(unusable: [UnusableMessage(error: FixError(
                code: .decryptionFailed,
                message: "the encrypted message does not open with the device's owntracksSecret: the phone's passphrase differs"),
                json: message)]), replyBox: nil)
        }
        let inner: JSONValue
        do {
            inner = try JSONParser.parse(plaintext)
        } catch {
            return OwnTracksBody(payload: AppPayload(notJSON: plaintext, error), replyBox: box)
        }
        guard case .plain(let payload) = OwnTracksFormat.read(inner, now: now, rules: rules) else {
            return OwnTracksBody(payload: AppPayload(unusable: [UnusableMessage(
                error: FixError(code: .invalidBody, message: "an encrypted message holds another encrypted message"), json: inner)]),
                replyBox: box)
        }
        return OwnTracksBody(payload: payload, replyBox: box)
    }
}
