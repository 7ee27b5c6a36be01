// fuzz-modules: API Tracking HTTPServer
// fuzz-support: FuzzCheck
// fuzz-max-len: 1024
//
// Parsing of request headers, query parameters and cursors (Sources/API, Tracking's
// CursorCoding). The first input byte picks the parser, the rest is the header or parameter
// value. Invariants: nothing traps; every refusal maps to a 4xx (never a 500); a bearer token
// comes back trimmed; a cursor that decodes encodes and decodes to itself.
@testable import API
import HTTPServer
import Tracking

let mapper = ErrorMapper(logger: Logger(level: .error))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (selector, input) = splitSelector(fuzzBytes(data, size)) else { return 0 }
    let text = String(decoding: input, as: UTF8.self)
    switch selector % 6 {
    case 0:
        let request = Request(method: "POST", path: "/", headerFields: [("content-type", text)], body: Array("{}".utf8))
        refusalIs4xx(request) { _ = try JSONBody.parse(request) }
    case 1:
        let request = Request(method: "GET", path: "/", headerFields: [("authorization", text)])
        if let token = Authentication.bearerToken(request) {
            require(token.first != " " && token.last != " ", "bearer token not trimmed: \(shown(input))")
        }
    case 2:
        _ = Base64.decodeStandard(text)
    case 3:
        let request = Request(method: "GET", path: "/", queryItems: [("cursor", text)])
        refusalIs4xx(request) {
            let cursor = try CursorCoding.decode(text)
            let again = try CursorCoding.decode(CursorCoding.encode(cursor))
            require(again == cursor, "cursor \(cursor) does not round-trip")
        }
    case 4:
        let request = Request(method: "GET", path: "/", queryItems: [("from", text)])
        refusalIs4xx(request) { _ = try QueryTime.parse(request.query("from"), name: "from") }
    default:
        let request = Request(method: "GET", path: "/", queryItems: [("limit", text)])
        refusalIs4xx(request) {
            _ = try QueryNumber.int(request.query("limit"), name: "limit")
            _ = try QueryNumber.double(request.query("limit"), name: "limit")
        }
    }
    return 0
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
