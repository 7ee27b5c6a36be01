// fuzz-modules: API Tracking HTTPServer
// fuzz-support: FuzzCheck
// fuzz-max-len: 1024
//
// Parsing of request headers, query parameters and cursors: the checked helpers of
// Sources/API/RequestParameters.swift (media types, Authorization, numbers, times, event ids,
// header splitting), JSONBody's Content-Type check, HTTP Basic's base64 and Tracking's
// CursorCoding. The first input byte picks the parser, the rest is the header or parameter
// value. Invariants: nothing traps; every refusal maps to a 4xx (never a 500); values come back
// inside the range asked for; media types are lower-cased tokens and JSON ones are accepted as
// JSON bodies; bearer tokens are non-empty and unpadded; anything the number grammar accepts
// converts; cursors round-trip.
@testable import API
import HTTPServer
import Tracking

let mapper = ErrorMapper(logger: Logger(level: .error))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let text = String(decoding: input, as: UTF8.self)
    switch selector % 9 {
    case 0: contentType(text)
    case 1: authorization(text)
    case 2: cursor(text)
    case 3: time(text)
    case 4: numbers(text)
    case 5: eventID(text)
    case 6: grammar(text)
    case 7: headerField(text)
    default: _ = Base64.decodeStandard(text)
    }
    return 0
}

func contentType(_ text: String) {
    let request = Request(method: "POST", path: "/", headerFields: [("content-type", text)], body: Array("{}".utf8))
    var accepted = false
    refusalIs4xx(request) {
        _ = try JSONBody.parse(request)
        accepted = true
    }
    guard let media = MediaType(text) else {
        require(!accepted, "a JSON body was accepted with the malformed Content-Type \(text)")
        return
    }
    require(media.type == media.type.lowercased() && media.subtype == media.subtype.lowercased()
            && HeaderField.isToken(Substring(media.type)) && HeaderField.isToken(Substring(media.subtype)),
            "media type \(media.type)/\(media.subtype) from \(text)")
    require(media.parameters.allSatisfy { !$0.name.isEmpty && $0.name == $0.name.lowercased() }, "parameters of \(text)")
    require(accepted == media.isJSON, "JSONBody and MediaType disagree about \(text)")
}

func authorization(_ text: String) {
    let request = Request(method: "GET", path: "/", headerFields: [("authorization", text)])
    if let token = Authentication.bearerToken(request) {
        require(!token.isEmpty && !token.contains(" ") && token.first != "\t" && token.last != "\t",
                "bearer token \(token) from \(text)")
    }
    if let (user, _) = AuthorizationHeader.basic(text, decode: Base64.decodeStandard) {
        require(!user.contains(":"), "Basic user \(user) holds the colon that ends it, from \(text)")
    }
}

func cursor(_ text: String) {
    let request = Request(method: "GET", path: "/", queryItems: [("cursor", text)])
    refusalIs4xx(request) {
        let cursor = try CursorCoding.decode(text)
        let again = try CursorCoding.decode(CursorCoding.encode(cursor))
        require(again == cursor, "cursor \(cursor) does not round-trip")
    }
}

func time(_ text: String) {
    let request = Request(method: "GET", path: "/", queryItems: [("from", text)])
    refusalIs4xx(request) {
        if let ms = try QueryTime.parse(request.query("from"), name: "from") {
            require(QueryTime.range.contains(ms), "time \(ms) from \(text) outside \(QueryTime.range)")
        }
    }
}

func numbers(_ text: String) {
    let request = Request(method: "GET", path: "/", queryItems: [("limit", text)])
    refusalIs4xx(request) {
        if let value = try QueryNumber.int(text, name: "limit", in: -1000...1000) {
            require((-1000...1000).contains(value), "\(value) from \(text) outside the range")
        }
    }
    refusalIs4xx(request) {
        if let value = try QueryNumber.double(text, name: "limit", in: 0...1) {
            require(value.isFinite && (0...1).contains(value), "\(value) from \(text) outside the range")
        }
    }
    refusalIs4xx(request) {
        if let value = try QueryNumber.double(text, name: "limit") {
            require(value.isFinite, "non-finite \(value) from \(text)")
        }
    }
}

func eventID(_ text: String) {
    let request = Request(method: "GET", path: "/", headerFields: [("last-event-id", text)])
    refusalIs4xx(request) {
        if let id = try EventID.parse(text) { require(id.rawValue >= 0, "event id \(id) from \(text)") }
    }
}

func grammar(_ text: String) {
    if DecimalSyntax.isInteger(text) {
        require(Double(text) != nil, "\(text) passes the integer grammar but does not convert")
    }
    if DecimalSyntax.isNumber(text) {
        require(Double(text) != nil, "\(text) passes the number grammar but does not convert")
    }
}

func headerField(_ text: String) {
    for part in HeaderField.split(text, on: ";") + [HeaderField.trimmed(Substring(text))] {
        require(part.first != " " && part.first != "\t" && part.last != " " && part.last != "\t", "untrimmed \(part)")
    }
}

/// Runs `body`; an error it throws must become a 4xx response.
func refusalIs4xx(_ request: Request, _ body: () throws -> Void) {
    do {
        try body()
    } catch {
        let status = mapper.response(for: error, request: request).status
        require((400..<500).contains(status), "\(error) maps to \(status)")
    }
}
