import Foundation
import Testing
import HTTPTestSupport
@testable import API
import Tracking

/// The checked parsers of `RequestParameters.swift`, and the malformed headers that once
/// crashed the server, sent to the real executable.
@Suite struct RequestParametersTests {
    @Test(arguments: [
        ("application/json", true), ("Application/JSON; charset=utf-8", true), ("application/geo+json", true),
        (" application/json ;charset=\"utf-8\"", true), ("application/json;", true),
        ("", false), (";", false), (" ; ", false), (";;;", false), ("application", false), ("application/", false),
        ("/json", false), ("application/json/x", false), ("text/plain", false), ("application /json", false),
        ("ap\u{0}plication/json", false), ("appl\u{E9}cation/json", false),
    ])
    func mediaTypes(_ header: String, _ isJSON: Bool) {
        #expect((MediaType(header)?.isJSON ?? false) == isJSON, "\(header)")
    }

    @Test func mediaTypeParameters() throws {
        let type = try #require(MediaType("text/plain; Charset=\"UTF-8\"; =x; junk"))
        #expect(type.type == "text" && type.subtype == "plain")
        #expect(type.parameters.map(\.name) == ["charset"] && type.parameters.map(\.value) == ["UTF-8"])
    }

    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer   abc  ", "abc"), ("BEARER\tabc", "abc"),
        ("Bearer", nil), ("Bearer ", nil), ("Bearer a b", nil), ("Basic abc", nil), ("", nil), (" ", nil), ("abc", nil),
    ] as [(String, String?)])
    func bearerTokens(_ header: String, _ token: String?) {
        #expect(AuthorizationHeader.bearerToken(header) == token, "\(header)")
    }

    @Test func basicCredentials() {
        let decode: (String) -> [UInt8]? = { Data(base64Encoded: $0).map(Array.init) }
        let pair = AuthorizationHeader.basic("Basic " + Data("d_1:tok:en".utf8).base64EncodedString(), decode: decode)
        #expect(pair?.user == "d_1" && pair?.password == "tok:en")
        #expect(AuthorizationHeader.basic("Basic " + Data("no colon".utf8).base64EncodedString(), decode: decode) == nil)
        #expect(AuthorizationHeader.basic("Basic !!!", decode: decode) == nil)
        #expect(AuthorizationHeader.basic("Basic", decode: decode) == nil)
        #expect(AuthorizationHeader.basic("Bearer " + Data("a:b".utf8).base64EncodedString(), decode: decode) == nil)
    }

    @Test func numbersFollowTheDecimalGrammarAndTheirRange() throws {
        #expect(try QueryNumber.int("42", name: "n") == 42)
        #expect(try QueryNumber.int("", name: "n") == nil)
        #expect(try QueryNumber.int(nil, name: "n") == nil)
        for bad in ["1e3", "0x10", " 1", "1 ", "--1", "+", "1.0", "99999999999999999999", String(repeating: "9", count: 500)] {
            #expect(throws: (any Error).self, "\(bad)") { try QueryNumber.int(bad, name: "n") }
        }
        #expect(throws: (any Error).self) { try QueryNumber.int("11", name: "n", in: 1...10) }
        #expect(try QueryNumber.double("-1.5e3", name: "x") == -1500)
        for bad in ["1e400", "-1e400", "nan", "inf", "infinity", "0x1p3", ".5", "5.", "1e", "", "1,5"] where !bad.isEmpty {
            #expect(throws: (any Error).self, "\(bad)") { try QueryNumber.double(bad, name: "x") }
        }
        #expect(throws: (any Error).self) { try QueryNumber.double("181", name: "x", in: -180...180) }
    }

    @Test func timesStayWithinTheYears0001To9999() throws {
        #expect(try QueryTime.parse("0", name: "t") == 0)
        #expect(try QueryTime.parse("-1", name: "t") == -1)
        #expect(try QueryTime.parse("2026-11-30T08:15:00Z", name: "t") == 1_796_026_500_000)
        #expect(try QueryTime.parse("253402300799999", name: "t") == 253_402_300_799_999)
        for bad in ["253402300800000", "-62135596800001", "9223372036854775807", "-9223372036854775808", "1e3", "yesterday"] {
            #expect(throws: (any Error).self, "\(bad)") { try QueryTime.parse(bad, name: "t") }
        }
    }

    /// Headers that crashed the process on the old main (`Content-Type: ;` was an index out
    /// of range), each on a JSON route and on the OsmAnd route that reads the media type itself
    /// (415 on the one, 401 for the unknown token on the other).
    @Test func malformedHeadersGetA4xxFromTheRealServer() throws {
        let served = try ServedStore("fod-headers-")
        defer { served.remove() }
        let server = try served.serve()
        defer { server.stop() }
        let body = Array(#"{"email":"h@example.org","password":"password-h","displayName":"H"}"#.utf8)
        for contentType in ["", ";", " ; ", ";;", "/", "application/", "\u{1}", ";charset=utf-8", String(repeating: ";", count: 5000)] {
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("POST", "/v1/users", headers: ["Content-Type": contentType], body: body).status == 415, "\(contentType)")
            // The OsmAnd route reads any body (a form here) and refuses only the unknown token.
            let osmand = try client.request("POST", "/v1/ingest/osmand", headers: ["Content-Type": contentType], body: Array("id=x".utf8))
            #expect(osmand.status == 401, "\(contentType)")
        }
        for authorization in ["", " ", "Bearer", "Bearer ", "Bearer  ", "Basic", "Basic ", "Basic =", "Basic " + String(repeating: "A", count: 5000), "\u{7F}"] {
            let client = try HTTPTestClient(port: server.port)
            #expect(try client.request("GET", "/v1/me", headers: ["Authorization": authorization]).status == 401, "\(authorization)")
            let ownTracks = try client.request("POST", "/v1/ingest/owntracks", headers: ["Authorization": authorization, "Content-Type": "application/json"],
                                               body: Array(#"{"_type":"location","lat":1,"lon":2,"tst":1700000000}"#.utf8))
            #expect(ownTracks.status == 401, "\(authorization)")
        }
        #expect(try HTTPTestClient(port: server.port).get("/healthz").status == 200)
    }
}

/// The OpenAPI document is served by the binary itself, and partition names split by scalar.
@Suite struct ServedContractTests {
    @Test func openAPIDocumentIsServedAtItsPath() throws {
        let served = try ServedStore("fod-openapi-")
        defer { served.remove() }
        let server = try served.serve()
        defer { server.stop() }
        let reply = try HTTPTestClient(port: server.port).get("/openapi.yaml")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type")?.hasPrefix("application/yaml") == true)
        #expect(reply.text.hasPrefix("openapi: 3.1"))
        #expect(reply.text.contains("  /openapi.yaml:"))
    }

    @Test func partitionNamesSplitAtTheEqualsScalar() {
        // "=" followed by a combining mark or an emoji modifier is one Character in Swift.
        #expect(Partition("group=\u{0301}x") == .group("\u{0301}x"))
        #expect(Partition("device=\u{1F3FB}") == .device("\u{1F3FB}"))
        #expect(Partition("user=a=\u{0301}") == nil)
        #expect(Partition("group=") == nil)
        #expect(Partition("=x") == nil)
    }
}
