import Foundation
import Testing
import HTTPTestSupport

/// The phone apps' own requests, through the real server.
@Suite struct AppIngestTests {
    @Test func ownTracksLocationWithBasicAuthRepliesWithAnArray() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let basic = Data("\(device.deviceID):\(device.deviceToken)".utf8).base64EncodedString()
            let message = #"{"_type":"location","acc":12,"alt":48,"batt":81,"bs":1,"conn":"w","created_at":1700000005,"lat":51.5007,"lon":-0.1246,"m":1,"t":"u","tid":"ph","tst":1700000000,"vac":3,"vel":18,"cog":270,"topic":"owntracks/ann/phone"}"#
            let headers = ["Authorization": "Basic \(basic)", "Content-Type": "application/json", "X-Limit-U": "ann", "X-Limit-D": "phone"]
            let reply = try app.client().request("POST", "/v1/ingest/owntracks", headers: headers, body: Array(message.utf8))
            #expect(reply.status == 200 && reply.text == "[]")
            // A resend is accepted again (the app needs 2xx) but stored once.
            #expect(try app.client().request("POST", "/v1/ingest/owntracks", headers: headers, body: Array(message.utf8)).status == 200)
            for other in [#"{"_type":"lwt","tst":1700000000}"#, #"{"_type":"transition","event":"enter","tst":1700000001,"lat":1,"lon":1,"acc":5,"tid":"ph","wtst":1}"#] {
                let r = try app.client().request("POST", "/v1/ingest/owntracks", headers: headers, body: Array(other.utf8))
                #expect(r.status == 200 && r.text == "[]")
            }
            let history = try device.history(app).json["locations"].array
            #expect(history.count == 1)
            #expect(history.first?["location"][0].double == -0.1246 && history.first?["timestamp"].string == "2023-11-14T22:13:20.000Z")
            #expect(abs((history.first?["speed"].double ?? 0) - 5) < 1e-9)  // 18 km/h
            // Wrong pairing of id and token is refused.
            let wrong = Data("d_other:\(device.deviceToken)".utf8).base64EncodedString()
            #expect(try app.client().request("POST", "/v1/ingest/owntracks", headers: ["Authorization": "Basic \(wrong)", "Content-Type": "application/json"], body: Array(message.utf8)).status == 401)
        }
    }

    @Test func osmAndQueryFormAndJSONForms() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let t = device.deviceToken
            // Traccar Client: GET with query parameters, speed in knots.
            let get = try app.client().get("/v1/ingest/osmand?id=\(t)&timestamp=1700000000&lat=51.5&lon=-0.12&speed=10&bearing=90&altitude=20&accuracy=5&batt=80")
            #expect(get.status == 200 && get.json["accepted"].int == 1)
            // POST form with location=lat,lon and an ISO time.
            let form = "id=\(t)&location=48.8566%2C2.3522&timestamp=2023-11-14T22%3A20%3A00Z&hdop=1.2"
            let post = try app.client().request("POST", "/v1/ingest/osmand", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8))
            #expect(post.status == 200 && post.json["accepted"].int == 1)
            // JSON form (Traccar Client's background-geolocation body).
            let json = #"{"device_id":"\#(t)","location":{"timestamp":"2023-11-14T22:30:00.000Z","coords":{"latitude":40.7,"longitude":-74.0,"accuracy":8,"speed":2.5,"heading":180,"altitude":10},"is_moving":true,"odometer":12,"battery":{"level":0.55,"is_charging":false},"activity":{"type":"walking"}}}"#
            #expect(try app.client().request("POST", "/v1/ingest/osmand", token: nil, json: json).json["accepted"].int == 1)
            // "yyyy-MM-dd HH:mm:ss" in UTC.
            #expect(try app.client().get("/v1/ingest/osmand?deviceid=\(t)&timestamp=2023-11-14%2022:40:00&lat=1&lon=1").json["accepted"].int == 1)
            let history = try device.history(app).json["locations"].array
            #expect(history.count == 4)
            #expect(abs((history[0]["speed"].double ?? 0) - 5.14444) < 1e-3)
            #expect(history[2]["battery"].double == 55)
            #expect(history[3]["timestamp"].string == "2023-11-14T22:40:00.000Z")
            // Unknown or missing token: 401. Bad coordinates: recorded for the owner, not refused.
            #expect(try app.client().get("/v1/ingest/osmand?id=fodd_unknown&lat=1&lon=1").status == 401)
            #expect(try app.client().get("/v1/ingest/osmand?lat=1&lon=1").status == 401)
            let bad = try app.client().get("/v1/ingest/osmand?id=\(t)&lat=91&lon=1")
            #expect(bad.status == 200 && bad.json["accepted"].int == 0 && bad.json["rejected"][0]["error"]["code"].string == "invalid_location")
        }
    }

    @Test func overlandBatchIsIdempotentAndAnsweredOk() throws {
        try TestApp.with { app in
            let device = try DeviceFixture(app: app)
            let feature = { (lon: Double, lat: Double, time: String) in
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"timestamp":"\#(time)","altitude":12,"speed":-1,"horizontal_accuracy":-1,"vertical_accuracy":4,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"iphone"}}"#
            }
            let body = #"{"locations":[\#(feature(-122.41, 37.77, "2023-11-14T22:00:00Z")),\#(feature(-122.42, 37.78, "2023-11-14T22:00:10Z")),\#(feature(-122.43, 37.79, "2023-11-14T22:00:20Z"))],"current":{"type":"Feature"}}"#
            let reply = try app.client().request("POST", "/v1/ingest/overland", token: device.deviceToken, json: body)
            #expect(reply.status == 200 && reply.json["result"].string == "ok" && reply.json["accepted"].int == 3)
            let resend = try app.client().request("POST", "/v1/ingest/overland", token: device.deviceToken, json: body)
            #expect(resend.json["result"].string == "ok" && resend.json["duplicates"].int == 3)
            let history = try device.history(app).json["locations"].array
            #expect(history.count == 3 && history[0]["speed"].exists == false && history[0]["battery"].double == 80)
            #expect(try app.client().request("POST", "/v1/ingest/overland", token: device.user.token, json: body).status == 401)
        }
    }
}
