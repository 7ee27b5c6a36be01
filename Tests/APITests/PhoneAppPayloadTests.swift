import Foundation
import Testing
import HTTPTestSupport

/// The phone apps' own payloads (shapes from the apps' sources: OwnTracks Android's
/// `MessageLocation`/`MessageTransition`/`MessageStatus`…, OwnTracks iOS' `OwnTracking.m`,
/// Traccar Client's `HttpUploader` (form, JSON batches, the heartbeat without a fix) and its
/// background-geolocation template, OsmAnd's query, Overland's batches and its OwnTracks mode),
/// each through the real server on a fresh device: always 2xx, and what the owner then sees —
/// the fixes stored, the rejection recorded, the battery, the region event.
@Suite struct PhoneAppPayloadTests {
    /// What a case needs to build its request.
    struct Context {
        let deviceID: String
        let token: String
        /// Now, in epoch seconds.
        let now: Int

        var basic: String { "Basic " + Data("\(deviceID):\(token)".utf8).base64EncodedString() }

        /// `text` with `TOKEN`, `NOWISO` (now in ISO 8601), `EARLIER` (a minute ago) and `NOW`
        /// (epoch seconds) filled in, in one pass over `text`: what is filled in is never read
        /// again (a random token may well contain `NOW`).
        func fill(_ text: String) -> String {
            let values = [("NOWISO", ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now)))),
                          ("EARLIER", "\(now - 60)"), ("TOKEN", token), ("NOW", "\(now)")]
            var filled = ""
            var rest = Substring(text)
            while let first = rest.first {
                if let (name, value) = values.first(where: { rest.hasPrefix($0.0) }) {
                    filled += value
                    rest = rest.dropFirst(name.count)
                } else {
                    filled.append(first)
                    rest = rest.dropFirst()
                }
            }
            return filled
        }
    }

    struct Request {
        let method: String
        let path: String
        var headers: [String: String] = [:]
        var body: String?
    }

    struct Case: Sendable {
        let name: String
        let request: @Sendable (Context) -> Request
        /// Fixes stored by it.
        let stored: Int
        /// The reason the owner then reads first in the rejections, if any.
        var rejection: String?
        /// The device's battery after it.
        var battery: Double?
        /// A region event the owner then reads (`event` and `region`).
        var event: (String, String)?
    }

    static func ownTracks(_ body: String) -> @Sendable (Context) -> Request {
        { c in Request(method: "POST", path: "/v1/ingest/owntracks",
                       headers: ["Authorization": c.basic, "Content-Type": "application/json; charset=utf-8", "X-Limit-U": "ann", "X-Limit-D": "pixel"],
                       body: c.fill(body)) }
    }

    static func form(_ body: String) -> @Sendable (Context) -> Request {
        { c in Request(method: "POST", path: "/v1/ingest/osmand", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                       body: c.fill(body)) }
    }

    static func json(_ path: String, _ body: String, bearer: Bool = false) -> @Sendable (Context) -> Request {
        { c in
            var headers = ["Content-Type": "application/json"]
            if bearer { headers["Authorization"] = "Bearer \(c.token)" }
            return Request(method: "POST", path: path, headers: headers, body: c.fill(body))
        }
    }

    static func overlandFeature(_ time: String, battery: Double = 0.8) -> String {
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.0305,37.3318]},"properties":{"timestamp":"\#(time)","altitude":12,"speed":4,"course":270,"horizontal_accuracy":30,"vertical_accuracy":4,"speed_accuracy":0.5,"course_accuracy":10,"motion":["driving"],"battery_state":"unplugged","battery_level":\#(battery),"wifi":"","device_id":"iphone"}}"#
    }

    static let cases: [Case] = [
        // OwnTracks Android, MessageLocation as the app serializes it in HTTP mode.
        Case(name: "OwnTracks Android location", request: ownTracks(#"{"_type":"location","_id":"1a2b3c4d","acc":13,"alt":42,"batt":85,"bs":1,"BSSID":"aa:bb:cc:dd:ee:ff","conn":"w","created_at":NOW,"lat":51.5034,"lon":-0.1276,"m":1,"SSID":"home","source":"fused","t":"u","tid":"JD","topic":"owntracks/ann/pixel","tst":NOW,"vac":3,"vel":36,"cog":270}"#),
             stored: 1, battery: 85),
        // OwnTracks iOS (OwnTracking.m), extended data on.
        Case(name: "OwnTracks iOS location", request: ownTracks(#"{"_type":"location","t":"p","lat":48.856614,"lon":2.352222,"tst":NOW,"acc":8,"alt":35,"vac":4,"vel":0,"cog":12,"p":101.325,"conn":"w","m":2,"tid":"JD","batt":61,"bs":2,"inregions":["home"],"topic":"owntracks/ann/iphone"}"#),
             stored: 1, battery: 61),
        // A phone whose clock is more than a day ahead, or was never set, or a wild accuracy.
        Case(name: "OwnTracks tst more than a day ahead", request: ownTracks(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":4102444800,"tid":"JD","batt":50}"#),
             stored: 0, rejection: "timestamp_in_future"),
        Case(name: "OwnTracks tst before 2000", request: ownTracks(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":86400,"tid":"JD"}"#),
             stored: 0, rejection: "timestamp_too_old"),
        Case(name: "OwnTracks acc over 100 km", request: ownTracks(#"{"_type":"location","lat":51.5,"lon":-0.12,"tst":NOW,"acc":250000,"tid":"JD","batt":44}"#),
             stored: 0, rejection: "invalid_accuracy", battery: 44),
        Case(name: "OwnTracks latitude out of range", request: ownTracks(#"{"_type":"location","lat":95.5,"lon":-0.12,"tst":NOW,"tid":"JD"}"#),
             stored: 0, rejection: "invalid_location"),
        // Overland's OwnTracks mode: `Basic <token>:` unencoded, tst counted from 2001.
        Case(name: "Overland's OwnTracks mode", request: { c in
            Request(method: "POST", path: "/v1/ingest/owntracks", headers: ["Authorization": "Basic \(c.token):", "Content-Type": "application/json"],
                    body: #"{"_type":"location","lat":37.3318,"lon":-122.0305,"tst":\#(c.now - 978_307_200),"acc":10,"batt":77,"topic":"owntracks/iphone"}"#)
        }, stored: 1, battery: 77),
        // MessageTransition: kept as a device event.
        Case(name: "OwnTracks transition", request: ownTracks(#"{"_type":"transition","_id":"5e6f","event":"enter","desc":"Home","tid":"JD","t":"c","tst":NOW,"wtst":1690000000,"acc":14,"lon":-0.1276,"lat":51.5034,"topic":"owntracks/ann/pixel/event"}"#),
             stored: 0, event: ("enter", "Home")),
        Case(name: "OwnTracks waypoint", request: ownTracks(#"{"_type":"waypoint","_id":"77","desc":"Home","lat":51.5034,"lon":-0.1276,"rad":100,"tst":1690000000}"#), stored: 0),
        Case(name: "OwnTracks waypoints", request: ownTracks(#"{"_type":"waypoints","_id":"78","waypoints":[{"_type":"waypoint","desc":"Home","lat":51.5,"lon":-0.12,"rad":100,"tst":1690000000},{"_type":"waypoint","desc":"Work","lat":51.52,"lon":-0.08,"rad":150,"tst":1690000100}]}"#), stored: 0),
        Case(name: "OwnTracks lwt", request: ownTracks(#"{"_type":"lwt","created_at":NOW,"tst":NOW}"#), stored: 0),
        Case(name: "OwnTracks Android status", request: ownTracks(#"{"_type":"status","_id":"79","android":{"wifi":1,"ps":0,"bo":1,"hib":0,"loc":0,"version":420500,"flavour":"gms"}}"#), stored: 0),
        Case(name: "OwnTracks card", request: ownTracks(#"{"_type":"card","_id":"80","name":"Ann","face":"iVBORw0KGgo=","tid":"JD"}"#), stored: 0),
        Case(name: "OwnTracks cmd", request: ownTracks(#"{"_type":"cmd","_id":"81","action":"reportLocation"}"#), stored: 0),
        // payload encryption on in the app, but no secret set for the device: never dropped silently.
        Case(name: "OwnTracks encrypted without a secret", request: ownTracks(#"{"_type":"encrypted","_id":"82","data":"q83vEjRWeJDk4RsZ3Gq3xXN0aXJyaW5nIHBheWxvYWQgYmxvY2s="}"#),
             stored: 0, rejection: "encryption_not_configured"),
        Case(name: "OwnTracks unknown _type", request: ownTracks(#"{"_type":"somethingNew","tst":NOW}"#), stored: 0, rejection: "unsupported_message"),
        Case(name: "OwnTracks body that is not JSON", request: ownTracks("{\"_type\":\"location\",\"lat\":"), stored: 0, rejection: "malformed_json"),
        Case(name: "OwnTracks empty body", request: ownTracks(""), stored: 0),
        // Traccar Client 10 (HttpUploader): a form per position, speed in knots.
        Case(name: "Traccar Client form", request: form("id=TOKEN&lat=52.5200&lon=13.4050&timestamp=NOW&accuracy=6.0&altitude=38.0&speed=2.7&bearing=180.0&batt=72&charge=false&battery_health=good&battery_voltage=4012&battery_temp=27.5"),
             stored: 1, battery: 72),
        // Its heartbeat while stationary without a fix: the status, not a rejection.
        Case(name: "Traccar Client heartbeat without a fix", request: form("id=TOKEN&timestamp=NOW&batt=71&charge=true"), stored: 0, battery: 71),
        Case(name: "Traccar Client SOS alarm", request: form("id=TOKEN&lat=52.52&lon=13.405&timestamp=NOW&batt=70&alarm=sos"), stored: 1, battery: 70),
        // Its JSON batches (uploadJson).
        Case(name: "Traccar Client JSON batch", request: json("/v1/ingest/osmand", #"[{"id":"TOKEN","lat":52.52,"lon":13.405,"timestamp":EARLIER,"accuracy":6.0,"speed":2.7,"bearing":90.0,"batt":69,"charge":false},{"id":"TOKEN","lat":52.521,"lon":13.406,"timestamp":1,"batt":68},{"id":"TOKEN","timestamp":NOW,"batt":67}]"#),
             stored: 1, rejection: "timestamp_too_old", battery: 67),
        // OsmAnd's own online tracking: GET with a query; a fix the device marks invalid.
        Case(name: "OsmAnd query", request: { c in Request(method: "GET", path: "/v1/ingest/osmand?id=\(c.token)&lat=46.2044&lon=6.1432&timestamp=\(c.now)&hdop=1.2&altitude=375&speed=0") }, stored: 1),
        Case(name: "OsmAnd valid=false", request: { c in Request(method: "GET", path: "/v1/ingest/osmand?id=\(c.token)&lat=46.2044&lon=6.1432&timestamp=\(c.now)&valid=false&batt=40") },
             stored: 0, rejection: "fix_not_valid", battery: 40),
        // Traccar Client 9 (background-geolocation template), single and batched.
        Case(name: "Traccar Client background-geolocation", request: json("/v1/ingest/osmand", #"{"location":{"timestamp":"NOWISO","coords":{"latitude":40.7128,"longitude":-74.006,"accuracy":9,"speed":1.2,"heading":45,"altitude":10},"is_moving":true,"odometer":1523.4,"event":"","battery":{"level":0.66,"is_charging":false},"activity":{"type":"walking"},"extras":{},"_":"&id=TOKEN&lat=40.7128&lon=-74.006&timestamp=NOWISO&"},"device_id":"TOKEN"}"#),
             stored: 1, battery: 66),
        Case(name: "Traccar Client background-geolocation batch", request: json("/v1/ingest/osmand", #"{"location":[{"timestamp":"NOWISO","coords":{"latitude":40.7,"longitude":-74.0,"accuracy":9,"speed":-1,"heading":-1,"altitude":10},"battery":{"level":0.65,"is_charging":true},"extras":{"heartbeat":true}},{"timestamp":"1999-12-31T23:59:59Z","coords":{"latitude":40.71,"longitude":-74.01,"accuracy":9},"extras":{},"_":"&id=TOKEN&lat=40.71&lon=-74.01&"}],"device_id":"TOKEN"}"#),
             stored: 1, rejection: "timestamp_too_old", battery: 65),
        Case(name: "OsmAnd form that is not a form", request: form("id=TOKEN&lat=%zz"), stored: 0, rejection: "invalid_form"),
        // Overland: a batch with a point from a clock that was never set.
        Case(name: "Overland batch", request: json("/v1/ingest/overland", #"{"locations":[\#(overlandFeature("NOWISO", battery: 0.58)),\#(overlandFeature("1970-01-01T00:00:10Z"))],"current":\#(overlandFeature("NOWISO")),"trip":{"distance":120,"mode":"car","start":"NOWISO"}}"#, bearer: true),
             stored: 1, rejection: "timestamp_too_old", battery: 58),
        Case(name: "Overland body that is not a batch", request: json("/v1/ingest/overland", #"{"location":{}}"#, bearer: true), stored: 0, rejection: "invalid_body"),
        Case(name: "Overland empty batch", request: json("/v1/ingest/overland", #"{"locations":[]}"#, bearer: true), stored: 0),
    ]

    /// A token that happens to hold a placeholder's name is filled in as it is (a CI run once
    /// sent a token whose `NOW` had become the time, and got 401).
    @Test func aFilledInTokenIsNeverReadAgain() {
        let context = Context(deviceID: "d_1", token: "fodd_aNOWbTOKENcEARLIER", now: 1_700_000_000)
        #expect(context.fill("id=TOKEN&t=NOW&e=EARLIER&iso=NOWISO") == "id=fodd_aNOWbTOKENcEARLIER&t=1700000000&e=1699999940&iso=2023-11-14T22:13:20Z")
    }

    @Test func everyAppPayloadIsAnswered2xxAndTheOwnerSeesWhatBecameOfIt() throws {
        try TestApp.with { app in
            for testCase in Self.cases {
                let device = try DeviceFixture(app: app)
                let now = Int(Date().timeIntervalSince1970)
                let context = Context(deviceID: device.deviceID, token: device.deviceToken, now: now)
                let request = testCase.request(context)
                let reply = try app.client().request(request.method, request.path, headers: request.headers, body: request.body.map { Array($0.utf8) })
                #expect((200..<300).contains(reply.status), "\(testCase.name): \(reply.status) \(reply.text)")
                if request.path.hasPrefix("/v1/ingest/overland") { #expect(reply.json["result"].string == "ok", "\(testCase.name)") }
                if request.path.hasPrefix("/v1/ingest/owntracks") { #expect(reply.text == "[]", "\(testCase.name): \(reply.text)") }

                let stored = try device.history(app).json["locations"].array.count
                #expect(stored == testCase.stored, "\(testCase.name): \(stored) fixes stored")
                let rejections = try app.client().get("/v1/devices/\(device.deviceID)/rejections", token: device.user.token).json["rejections"]
                #expect(rejections.array.first?["reason"].string == testCase.rejection, "\(testCase.name): \(rejections)")
                if testCase.rejection != nil {
                    #expect(rejections[0]["source"].string == String(request.path.dropFirst("/v1/ingest/".count).prefix { $0 != "?" }))
                    #expect(!(rejections[0]["sample"].string ?? "").contains(device.deviceToken), "\(testCase.name): the sample holds the token")
                }
                let document = try app.client().get("/v1/devices/\(device.deviceID)", token: device.user.token).json
                #expect(document["battery"].double == testCase.battery, "\(testCase.name): battery \(document["battery"])")
                let seen = document["lastSeenAt"].string.flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") }
                #expect(seen.map { abs($0.timeIntervalSince1970 - Double(now)) <= 2 } == true, "\(testCase.name): lastSeenAt \(document["lastSeenAt"])")
                let events = try app.client().get("/v1/devices/\(device.deviceID)/events", token: device.user.token).json["events"]
                if let (event, region) = testCase.event {
                    #expect(events[0]["event"].string == event && events[0]["region"].string == region, "\(testCase.name): \(events)")
                } else {
                    #expect(events.array.isEmpty, "\(testCase.name): \(events)")
                }
            }
        }
    }

    /// Only a credential, the body's size and the device's rate refuse; the native endpoint keeps
    /// its precise 4xx but still sees the device.
    @Test func onlyTheCredentialTheSizeAndTheRateRefuse() throws {
        let app = try TestApp { $0.deviceRequests = .init(perSecond: 0.001, burst: 3) }
        defer { app.close() }
        let device = try DeviceFixture(app: app)
        let basic = "Basic " + Data("\(device.deviceID):\(device.deviceToken)".utf8).base64EncodedString()
        let owntracks = { (auth: String, body: [UInt8]) in
            try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": auth, "Content-Type": "application/json"], body: body)
        }
        #expect(try owntracks("Basic " + Data("\(device.deviceID):fodd_wrong".utf8).base64EncodedString(), Array("{}".utf8)).status == 401)
        #expect(try app.client().request("POST", "/v1/ingest/overland", token: device.user.token, json: #"{"locations":[]}"#).status == 401)
        #expect(try owntracks(basic, [UInt8](repeating: 0x20, count: 300 * 1024)).status == 413)
        // The native endpoint: 400 for a bad single fix, and the device was seen (one request).
        #expect(try device.post(app, #"{"location":[10,95]}"#).status == 400)
        #expect(try app.client().get("/v1/devices/\(device.deviceID)", token: device.user.token).json["lastSeenAt"].string != nil)
        // Two more requests use up the burst of 3; the next is 429 with Retry-After.
        #expect(try owntracks(basic, Array(#"{"_type":"lwt","tst":1}"#.utf8)).status == 200)
        #expect(try owntracks(basic, Array(#"{"_type":"lwt","tst":1}"#.utf8)).status == 200)
        let limited = try owntracks(basic, Array(#"{"_type":"lwt","tst":1}"#.utf8))
        #expect(limited.status == 429 && limited.header("Retry-After") != nil)
    }

    /// A heartbeat that changes nothing (the device seen within the minute, the same battery)
    /// costs a read, not a write transaction; one with a new battery level is written.
    @Test func aHeartbeatThatChangesNothingWritesNothing() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let commits = { app.store.gauges.first { $0.name == "fod_database_commits_total" }?.value ?? -1 }
            let heartbeat = { (battery: Int) in
                try app.client().request("POST", "/v1/ingest/osmand", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                         body: Array("id=\(device.deviceToken)&batt=\(battery)".utf8)).status
            }
            #expect(try heartbeat(50) == 200)
            let afterFirst = commits()
            #expect(try heartbeat(50) == 200)
            #expect(try heartbeat(50) == 200)
            #expect(commits() == afterFirst)
            #expect(try heartbeat(49) == 200)
            #expect(commits() > afterFirst)
            #expect(try app.client().get("/v1/devices/\(device.deviceID)", token: device.user.token).json["battery"].double == 49)
        }
    }
}
