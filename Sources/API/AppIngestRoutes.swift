import Crypto
import HTTPServer
import JSONCore
import LocationFormats
import Synchronization
import Timestamps
import Tracking

/// Ingest endpoints for the phone apps people already use. Each reads its payload with its
/// format (`LocationFormats`) and hands it to `PhoneIngest`, which stores the fixes through
/// `LocationService.ingest` (validation, deduplication and events are those of the native
/// endpoint) and records what cannot be stored: the apps are never answered 4xx for what they
/// sent, only for their credential (401) and rate (429). The secret is always the device token.
struct AppIngestRoutes {
    let locations: LocationService
    let devices: DeviceService
    let friends: FriendsService
    let deviceLog: DeviceLogService
    let rejectionMetrics: RejectionMetrics
    let access: RouteAccess
    /// Largest OsmAnd-protocol body (a Traccar Client JSON batch).
    static let osmandMaxBodyBytes = 256 * 1024

    var routes: [Route] {
        let locations = self.locations
        let devices = self.devices
        let friends = self.friends
        let deviceLog = self.deviceLog
        let phone = PhoneIngest(locations: locations, metrics: rejectionMetrics)
        let auth = access.authentication
        let inlineBodyBytes = access.ingestInlineBodyBytes
        let checksInline = access.credentialChecksInline
        let osmand: Handler = .completing(inlineBodyBytes: inlineBodyBytes) { request, reply in
            let read = OsmAndRequest.read(request, now: Timestamp.nowMilliseconds(), rules: locations.rules)
            let checked = (request.headCheckResult as? DeviceCaller).flatMap { $0.token == read.token ? $0.credential : nil }
            guard let token = read.token, let credential = try checked ?? devices.credential(forDeviceToken: token) else {
                throw TrackingError.unauthenticated
            }
            try phone.ingest(read.payload, source: .osmand, credential: credential, token: token) { result in
                reply(result.map { .json(.object(PhoneIngest.counts($0, read.payload))) })
            }
        }
        // Each app's credential is checked before its body is read (`HeadCheck`). OsmAnd's may be
        // in the body instead when the query has none: a form (one fix, a few hundred bytes) is
        // then held to the anonymous body limit; JSON, which may be a Traccar Client batch naming
        // its device only in the body, to the route's limit — both within the anonymous budget.
        let ownTracksHead = HeadCheck(runsInline: checksInline) { request in
            .authenticated(try Self.ownTracksCaller(request, devices: devices))
        }
        let overlandHead = HeadCheck(runsInline: checksInline) { request in
            .authenticated(try Self.overlandCaller(request, auth: auth))
        }
        let osmandHead = HeadCheck(runsInline: checksInline) { request in
            guard let token = OsmAndFormat.deviceToken(request.queryItems) else {
                return request.mediaType?.isForm == true ? .anonymous : .anonymousUpTo(maxBodyBytes: Self.osmandMaxBodyBytes)
            }
            guard let credential = try devices.credential(forDeviceToken: token) else { throw TrackingError.unauthenticated }
            return .authenticated(DeviceCaller(credential: credential, token: token))
        }
        return [
            Route("POST", "/v1/ingest/owntracks", maxBodyBytes: 256 * 1024, headCheck: ownTracksHead,
                  .completing(inlineBodyBytes: inlineBodyBytes) { request, reply in
                let caller = try request.headCheckResult as? DeviceCaller ?? Self.ownTracksCaller(request, devices: devices)
                let (credential, token) = (caller.credential, caller.token)
                // The app ignores zero-length bodies; so do we (the device was seen). It wants a
                // JSON array back: its friends when the owner opted in, else [] — sealed when it
                // sent an encrypted message. The reply lists other devices only, so it is read
                // while the report commits (the answer waits for both: 2xx = stored).
                let body = try OwnTracksBody.read(request.body, secret: { try deviceLog.ownTracksSecret(for: credential) },
                                                  now: Timestamp.nowMilliseconds(), rules: locations.rules)
                let answer = AnswerAfterCommit(reply)
                try phone.ingest(body.payload, source: .owntracks, credential: credential, token: token) { answer.committed($0) }
                let shown: [Friend]
                do { shown = try friends.friends(for: credential) } catch { return answer.answer(.failure(error)) }
                guard !shown.isEmpty else { return answer.answer(.success(OwnTracksFriends.response([], [], sealedWith: body.replyBox))) }
                // Friends' arrivals since this device's previous post, each once (a cursor moved in a write).
                friends.transitions(for: credential, now: Timestamp.nowMilliseconds()) { result in
                    answer.answer(result.map { OwnTracksFriends.response(shown, $0, sealedWith: body.replyBox) })
                }
            }),
            Route("GET", "/v1/ingest/osmand", headCheck: osmandHead, osmand),
            Route("POST", "/v1/ingest/osmand", maxBodyBytes: Self.osmandMaxBodyBytes, headCheck: osmandHead, osmand),
            Route("POST", "/v1/ingest/overland", maxBodyBytes: 8 << 20, headCheck: overlandHead,
                  .completing(inlineBodyBytes: inlineBodyBytes) { request, reply in
                let caller = try request.headCheckResult as? DeviceCaller ?? Self.overlandCaller(request, auth: auth)
                let (credential, token) = (caller.credential, caller.token)
                let payload = OverlandBody.read(request.body, now: Timestamp.nowMilliseconds(), rules: locations.rules)
                try phone.ingest(payload, source: .overland, credential: credential, token: token) { result in
                    // The app deletes its copy only on "ok"; what could never be stored is
                    // recorded for the owner, not resent forever.
                    reply(result.map { outcome in
                        var counts = PhoneIngest.counts(outcome, payload)
                        counts["result"] = "ok"
                        return .json(.object(counts))
                    })
                }
            }),
        ]
    }

    /// Overland's bearer token, which must be a device token.
    static func overlandCaller(_ request: Request, auth: Authentication) throws -> DeviceCaller {
        let credential = try auth.credential(request)
        guard case .device = credential, let token = Authentication.bearerToken(request) else {
            throw TrackingError(.unauthenticated, code: .unauthenticated,
                                message: "Overland must send its device token (Authorization: Bearer <deviceToken>)")
        }
        return DeviceCaller(credential: credential, token: token)
    }

    /// OwnTracks' credential (`ownTracksCredential`) as a `DeviceCaller`.
    static func ownTracksCaller(_ request: Request, devices: DeviceService) throws -> DeviceCaller {
        let (credential, token) = try ownTracksCredential(request, devices: devices)
        return DeviceCaller(credential: credential, token: token)
    }

    /// HTTP Basic `deviceId:deviceToken`: the token must belong to that device. Overland's
    /// OwnTracks mode sends `Basic <deviceToken>:` without base64; the token alone identifies
    /// the device then. Returns the credential and the token.
    static func ownTracksCredential(_ request: Request, devices: DeviceService) throws -> (Credential, String) {
        guard let header = request.header("authorization") else { throw TrackingError.unauthenticated }
        if let (deviceID, token) = AuthorizationHeader.basic(header, decode: Base64.decodeStandard) {
            guard let credential = try devices.credential(forDeviceToken: token), case .device(let tokenDevice, _) = credential,
                  tokenDevice.rawValue == deviceID else { throw TrackingError.unauthenticated }
            return (credential, token)
        }
        if let (token, rest) = AuthorizationHeader.basic(header, decode: { Array($0.utf8) }), rest.isEmpty,
           let credential = try devices.credential(forDeviceToken: token) {
            return (credential, token)
        }
        throw TrackingError.unauthenticated
    }
}

/// An OsmAnd-protocol request read: the device token it names and its payload. The token is
/// `id`/`deviceid` of the query or a form body, or `device_id`/`id` of a JSON body. A body is
/// JSON when its type says so, or when it has no form type and starts with `{` or `[`; any
/// other non-empty body is a form. A body that cannot be decoded is one unusable message.
struct OsmAndRequest {
    let token: String?
    let payload: AppPayload

    static func read(_ request: Request, now: Int64, rules: FixRules) -> OsmAndRequest {
        let query = request.queryItems
        let body = request.body
        guard !body.isEmpty else { return OsmAndRequest(token: OsmAndFormat.deviceToken(query), payload: OsmAndFormat.read(query, now: now, rules: rules)) }
        let mediaType = request.mediaType
        let first = body.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if mediaType?.isJSON == true || (mediaType?.isForm != true && (first == UInt8(ascii: "{") || first == UInt8(ascii: "["))) {
            let value: JSONValue
            do {
                value = try JSONParser.parse(body)
            } catch {
                return OsmAndRequest(token: OsmAndFormat.deviceToken(query), payload: AppPayload(notJSON: body, error))
            }
            guard let token = OsmAndFormat.deviceToken(query) ?? OsmAndFormat.deviceToken(json: value) else {
                return OsmAndRequest(token: nil, payload: AppPayload())
            }
            return OsmAndRequest(token: token, payload: OsmAndFormat.readJSON(value, token: token, now: now, rules: rules))
        }
        do {
            let items = query + (try OsmAndFormat.decodeForm(body))
            return OsmAndRequest(token: OsmAndFormat.deviceToken(items), payload: OsmAndFormat.read(items, now: now, rules: rules))
        } catch {
            return OsmAndRequest(token: OsmAndFormat.deviceToken(query + OsmAndFormat.decodeFormLeniently(body)),
                                 payload: AppPayload(unusableBody: body, error))
        }
    }
}

/// An Overland request body read: a batch, or one unusable message when it is empty or not JSON.
enum OverlandBody {
    static func read(_ body: [UInt8], now: Int64, rules: FixRules) -> AppPayload {
        guard !body.isEmpty else {
            return AppPayload(unusable: FixError(code: .missingBody, message: "the body is empty; Overland sends {\"locations\": [...]}"), sample: "")
        }
        do {
            return OverlandFormat.read(try JSONParser.parse(body), now: now, rules: rules)
        } catch {
            return AppPayload(notJSON: body, error)
        }
    }
}

/// A phone app's device credential and the token it sent, as its head check resolved them.
struct DeviceCaller: Sendable {
    let credential: Credential
    let token: String
}

/// The OwnTracks HTTP reply for a device's friends: a `card` and, when there is a location to
/// show, a `location` per friend, both with the friend's `topic` (which the app keys friends
/// by) and `tid`. `tst` (epoch seconds) is always present: without it the app never updates a
/// friend.
enum OwnTracksFriends {
    /// The reply to the device of `credential`; sealed with `box` as one `encrypted` message
    /// holding the whole array (what the apps open, as the OwnTracks Recorder sends it).
    static func response(_ friends: [Friend], _ transitions: [FriendTransition], sealedWith box: SecretBox? = nil) -> Response {
        let plain = reply(friends, transitions: transitions)
        return Response(status: 200, contentType: "application/json; charset=utf-8",
                        bytes: box.map { OwnTracksEncryption.seal(plain, with: $0) } ?? plain)
    }

    /// The reply's bytes, written straight from `friends` (no value tree: a reply of 50
    /// friends is 100 messages).
    static func reply(_ friends: [Friend], transitions: [FriendTransition] = []) -> [UInt8] {
        var writer = JSONWriter(capacity: 2 + friends.count * 300 + transitions.count * 250)
        writer.beginArray()
        for friend in friends {
            let topic = "owntracks/\(friend.userID.rawValue)/\(friend.deviceID.rawValue)"
            writer.beginObject()
            writer.key("_type"); writer.string("card")
            writer.key("tid"); writer.string(friend.tid)
            writer.key("name"); writer.string(friend.displayName)
            writer.key("topic"); writer.string(topic)
            writer.endObject()
            guard let location = friend.location else { continue }
            writer.beginObject()
            writer.key("_type"); writer.string("location")
            writer.key("tid"); writer.string(friend.tid)
            writer.key("lat"); writer.number(JSONNumber(location.latitude))
            writer.key("lon"); writer.number(JSONNumber(location.longitude))
            writer.key("tst"); writer.number(Self.epochSeconds(location.timestamp.millisecondsSince1970))
            if let accuracy = friend.accuracy, let meters = Int64(exactly: accuracy.rounded()), meters >= 0 {
                writer.key("acc"); writer.number(meters)
            }
            if let battery = friend.battery, let percent = Int64(exactly: battery.rounded()), (0...100).contains(percent) {
                writer.key("batt"); writer.number(percent)
            }
            writer.key("topic"); writer.string(topic)
            writer.endObject()
        }
        for transition in transitions {
            writer.beginObject()
            writer.key("_type"); writer.string("transition")
            writer.key("tid"); writer.string(transition.tid)
            writer.key("event"); writer.string(transition.crossing == .enter ? "enter" : "leave")
            writer.key("desc"); writer.string(transition.placeName)
            writer.key("tst"); writer.number(Self.epochSeconds(transition.timestamp))
            writer.key("wtst"); writer.number(Self.epochSeconds(transition.timestamp))
            writer.key("lat"); writer.number(JSONNumber(transition.latitude))
            writer.key("lon"); writer.number(JSONNumber(transition.longitude))
            writer.key("t"); writer.string("c")
            writer.key("topic"); writer.string("owntracks/\(transition.userID.rawValue)/\(transition.deviceID.rawValue)")
            writer.endObject()
        }
        writer.endArray()
        return writer.bytes
    }

    /// Whole seconds since 1970 of a time in milliseconds (rounded down).
    static func epochSeconds(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 1_000 : -((-(milliseconds + 1)) / 1_000) - 1
    }
}

/// Standard (padded) base64, as HTTP Basic and OwnTracks' encrypted messages use.
enum Base64 {
    static func encodeStandard(_ bytes: [UInt8]) -> String {
        var text = ""
        for c in Base64URL.encode(bytes).unicodeScalars {
            switch c {
            case "-": text.append("+")
            case "_": text.append("/")
            default: text.unicodeScalars.append(c)
            }
        }
        while text.utf8.count % 4 != 0 { text.append("=") }
        return text
    }


    static func decodeStandard(_ text: String) -> [UInt8]? {
        let trimmed = HeaderField.trimmed(Substring(text))
        var url = ""
        for c in trimmed.unicodeScalars {
            switch c {
            case "+": url.append("-")
            case "/": url.append("_")
            case "=": continue
            default: url.unicodeScalars.append(c)
            }
        }
        return Base64URL.decode(url)
    }
}

/// A reply that needs both a commit and an answer computed meanwhile (OwnTracks: the friends
/// read while the fix commits): the answer is sent once both are in, or the commit's error.
final class AnswerAfterCommit: Sendable {
    private let reply: Reply
    private let state = Mutex<(committed: Result<Void, Error>?, answer: Result<Response, Error>?)>((nil, nil))

    init(_ reply: Reply) { self.reply = reply }

    func committed<T>(_ result: Result<T, Error>) {
        settle { $0.committed = result.map { _ in () } }
    }

    func answer(_ result: Result<Response, Error>) {
        settle { $0.answer = result }
    }

    private func settle(_ change: (inout (committed: Result<Void, Error>?, answer: Result<Response, Error>?)) -> Void) {
        let both = state.withLock { state -> Result<Response, Error>? in
            change(&state)
            guard let committed = state.committed, let answer = state.answer else { return nil }
            if case .failure(let error) = committed { return .failure(error) }
            return answer
        }
        if let both { reply(both) }
    }
}
