import Crypto
import HTTPServer
import JSONCore
import LocationFormats
import Synchronization
import Timestamps
import Tracking

/// Ingest endpoints for the phone apps people already use. Each maps its payload onto
/// `LocationService.ingest`, so validation, deduplication and events are those of the native
/// endpoint; the secret is always the device token.
struct AppIngestRoutes {
    let services: Services

    var routes: [Route] {
        let locations = services.locations
        let devices = services.devices
        let friends = services.friends
        let auth = Authentication(services: services)
        let inlineBodyBytes = services.configuration.ingestInlineBodyBytes
        let checksInline = services.configuration.credentialChecksInline
        let osmand: Handler = .completing(inlineBodyBytes: inlineBodyBytes) { request, reply in
            let now = Timestamp.nowMilliseconds()
            let parsed: (deviceToken: String, fix: Fix)
            let mediaType = request.mediaType
            if request.body.isEmpty {
                parsed = try OsmAndFormat.parseQuery(request.queryItems, now: now, rules: locations.rules)
            } else if mediaType?.isJSON == true {
                parsed = try OsmAndFormat.parseJSON(try JSONBody.parse(request), now: now, rules: locations.rules)
            } else if mediaType?.isForm == true {
                parsed = try OsmAndFormat.parseQuery(request.queryItems + (try OsmAndFormat.decodeForm(request.body)),
                                                     now: now, rules: locations.rules)
            } else {
                throw HTTPError(status: 415, code: .unsupportedMediaType,
                                message: "send the OsmAnd fix as query parameters, a form, or JSON")
            }
            guard let credential = try devices.credential(forDeviceToken: parsed.deviceToken),
                  case .device(let deviceID, _) = credential else { throw TrackingError.unauthenticated }
            try locations.ingest([parsed.fix], deviceID: deviceID, credential: credential) { result in
                reply(result.map { .json(LocationRoutes.counts($0, rejected: [])) })
            }
        }
        // Each app's credential is checked before its body is read (`HeadCheck`). OsmAnd's may be
        // in the body instead (a form's `id`, JSON's `device_id`, where the query is not read):
        // such a body is held to the anonymous body limit (one fix is a few hundred bytes).
        let ownTracksHead = HeadCheck(runsInline: checksInline) { request in
            .authenticated(try Self.ownTracksCredential(request, devices: devices))
        }
        let overlandHead = HeadCheck(runsInline: checksInline) { request in
            .authenticated(try Self.overlandCredential(request, auth: auth))
        }
        let osmandHead = HeadCheck(runsInline: checksInline) { request in
            guard request.mediaType?.isJSON != true, let token = Self.osmandQueryToken(request) else { return .anonymous }
            guard let credential = try devices.credential(forDeviceToken: token), case .device = credential else {
                throw TrackingError.unauthenticated
            }
            return .authenticated(credential)
        }
        return [
            Route("POST", "/v1/ingest/owntracks", maxBodyBytes: 256 * 1024, headCheck: ownTracksHead,
                  .completing(inlineBodyBytes: inlineBodyBytes) { request, reply in
                let credential = try request.headCheckResult as? Credential ?? Self.ownTracksCredential(request, devices: devices)
                guard case .device(let deviceID, _) = credential else { throw TrackingError.unauthenticated }
                // The app ignores zero-length bodies; so do we. It wants a JSON array back: its
                // friends when the owner opted in, else []. The reply lists other devices only,
                // so it is read while the fix commits (the answer waits for both: 2xx = stored).
                if !request.body.isEmpty,
                   let fix = try OwnTracksFormat.parse(try JSONBody.parse(request), now: Timestamp.nowMilliseconds(), rules: locations.rules) {
                    let answer = AnswerAfterCommit(reply)
                    try locations.ingest([fix], deviceID: deviceID, credential: credential) { answer.committed($0) }
                    answer.answer(Result { try OwnTracksFriends.response(friends, credential) })
                    return
                }
                reply(Result { try OwnTracksFriends.response(friends, credential) })
            }),
            Route("GET", "/v1/ingest/osmand", headCheck: osmandHead, osmand),
            Route("POST", "/v1/ingest/osmand", maxBodyBytes: 256 * 1024, headCheck: osmandHead, osmand),
            Route("POST", "/v1/ingest/overland", maxBodyBytes: 8 << 20, headCheck: overlandHead,
                  .completing(inlineBodyBytes: inlineBodyBytes) { request, reply in
                let credential = try request.headCheckResult as? Credential ?? Self.overlandCredential(request, auth: auth)
                guard case .device(let deviceID, _) = credential else { throw TrackingError.unauthenticated }
                let batch = try OverlandFormat.parse(try JSONBody.parse(request), now: Timestamp.nowMilliseconds(), rules: locations.rules)
                let rejected = batch.rejected
                try locations.ingest(batch.fixes.map(\.fix), deviceID: deviceID, credential: credential) { result in
                    // The app deletes its copy only on "ok"; invalid points could never be stored,
                    // so they are reported but not resent forever.
                    reply(result.map { outcome in
                        guard case .object(var counts) = LocationRoutes.counts(outcome, rejected: rejected) else { return .json(.null) }
                        counts["result"] = "ok"
                        return .json(.object(counts))
                    })
                }
            }),
        ]
    }

    /// Overland's bearer token, which must be a device token.
    static func overlandCredential(_ request: Request, auth: Authentication) throws -> Credential {
        let credential = try auth.credential(request)
        if credential == .anonymous { throw TrackingError.unauthenticated }
        guard case .device = credential else {
            throw TrackingError.wrongCredentialKind("Overland must send its device token, not a user token: only a device writes partition device=<id>")
        }
        return credential
    }

    /// The device token OsmAnd sent in the query (`id`, or `deviceid`), if any.
    static func osmandQueryToken(_ request: Request) -> String? {
        request.queryItems.first { ($0.name == "id" || $0.name == "deviceid") && !$0.value.isEmpty }?.value
    }

    /// HTTP Basic `deviceId:deviceToken`: the token must belong to that device.
    static func ownTracksCredential(_ request: Request, devices: DeviceService) throws -> Credential {
        guard let header = request.header("authorization"),
              let (deviceID, token) = AuthorizationHeader.basic(header, decode: Base64.decodeStandard) else {
            throw TrackingError.unauthenticated
        }
        guard let credential = try devices.credential(forDeviceToken: token), case .device(let tokenDevice, _) = credential,
              tokenDevice.rawValue == deviceID else { throw TrackingError.unauthenticated }
        return credential
    }
}

/// The OwnTracks HTTP reply for a device's friends: a `card` and, when there is a location to
/// show, a `location` per friend, both with the friend's `topic` (which the app keys friends
/// by) and `tid`. `tst` (epoch seconds) is always present: without it the app never updates a
/// friend.
enum OwnTracksFriends {
    /// The reply to the device of `credential`.
    static func response(_ friends: FriendsService, _ credential: Credential) throws -> Response {
        Response(status: 200, contentType: "application/json; charset=utf-8", bytes: reply(try friends.friends(for: credential)))
    }

    /// The reply's bytes, written straight from `friends` (no value tree: a reply of 50
    /// friends is 100 messages).
    static func reply(_ friends: [Friend]) -> [UInt8] {
        var writer = JSONWriter(capacity: 2 + friends.count * 300)
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
            writer.key("topic"); writer.string(topic)
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

/// Standard (padded) base64, as HTTP Basic uses.
enum Base64 {
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
