import Dispatch
import Testing
@testable import HTTPServer

/// The in-process responder answers like the server: routing, 404/405, body limits, inline and
/// deferred and adaptive handlers, errors through the error responder, the request target decoded.
@Suite struct InProcessResponderTests {
    struct Refused: Error {}

    static let responder: InProcessResponder = {
        var router = Router()
        router.add(Route("GET", "/echo/{name}", .inline { request in
            let query = request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let text = "\(request.parameter("name"))|\(query)|\(request.header("X-Thing") ?? "-")|\(request.routePattern)"
            return Response(status: 200, contentType: "text/plain", bytes: Array(text.utf8))
        }))
        router.add(Route("POST", "/later", maxBodyBytes: 4, .deferred { request in
            Response(status: 201, contentType: "text/plain", bytes: request.body)
        }))
        router.add(Route("GET", "/refuse", .inline { _ in throw Refused() }))
        router.add(Route("POST", "/adaptive", .adaptive(inline: { request in
            request.body.count < 3 ? Response(status: 200, contentType: "text/plain", bytes: Array("inline".utf8)) : nil
        }, deferred: { request in
            Response(status: 200, contentType: "text/plain", bytes: Array("task".utf8))
        })))
        router.add(Route("POST", "/completing", .completing(inlineBodyBytes: 16) { request, reply in
            if request.body == Array("throw".utf8) { throw Refused() }
            let body = request.body
            DispatchQueue.global().async {
                if body == Array("fail".utf8) { reply(.failure(Refused())) }
                reply(.success(Response(status: 202, contentType: "text/plain", bytes: body)))
                reply(.success(Response(status: 200, contentType: "text/plain", bytes: Array("second".utf8))))
            }
        }))
        return InProcessResponder(router: router) { error, request in
            let code: String
            if let http = error as? HTTPError { code = http.code.rawValue } else { code = "refused" }
            return Response(status: (error as? HTTPError)?.status ?? 403, contentType: "text/plain",
                            bytes: Array("\(code) \(request.routePattern)".utf8))
        }
    }()

    static func text(_ response: Response) -> String {
        guard case .bytes(let bytes) = response.body else { return "(stream)" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func routesAndDecodesTheTarget() async {
        let response = await Self.responder.respond(method: "GET", target: "/echo/caf%C3%A9?a=1&b=x+y%26z&flag",
                                                    headers: [("x-THING", "yes")])
        #expect(response.status == 200)
        #expect(Self.text(response) == "café|a=1&b=x y&z&flag=|yes|/echo/{name}")
    }

    @Test func unknownPathsAndMethodsAreTheServersErrors() async {
        let missing = await Self.responder.respond(method: "GET", target: "/nothing")
        #expect(missing.status == 404 && Self.text(missing).hasPrefix("not_found"))
        let wrongMethod = await Self.responder.respond(method: "DELETE", target: "/echo/x")
        #expect(wrongMethod.status == 405)
    }

    @Test func deferredHandlersAndBodyLimits() async {
        let accepted = await Self.responder.respond(method: "POST", target: "/later", body: Array("abcd".utf8))
        #expect(accepted.status == 201 && Self.text(accepted) == "abcd")
        let tooLarge = await Self.responder.respond(method: "POST", target: "/later", body: Array("abcde".utf8))
        #expect(tooLarge.status == 413)
    }

    @Test func adaptiveHandlersFallBackToTheirDeferredPart() async {
        let cheap = await Self.responder.respond(method: "POST", target: "/adaptive", body: Array("ab".utf8))
        #expect(Self.text(cheap) == "inline")
        let costly = await Self.responder.respond(method: "POST", target: "/adaptive", body: Array("abc".utf8))
        #expect(Self.text(costly) == "task")
    }

    @Test func thrownErrorsGoThroughTheErrorResponder() async {
        let refused = await Self.responder.respond(method: "GET", target: "/refuse")
        #expect(refused.status == 403 && Self.text(refused) == "refused /refuse")
    }

    @Test(arguments: ["%", "%4", "%zz", "a%C3", "%%41"])
    func malformedEscapesAreKeptNotTrapped(_ raw: String) {
        #expect(!InProcessResponder.percentDecoded(raw, plusIsSpace: true).isEmpty)
    }

    @Test func completingHandlersAnswerOnceThroughTheirReply() async {
        let answered = await Self.responder.respond(method: "POST", target: "/completing", body: Array("abc".utf8))
        #expect(answered.status == 202 && Self.text(answered) == "abc")
        let failed = await Self.responder.respond(method: "POST", target: "/completing", body: Array("fail".utf8))
        #expect(failed.status == 403 && Self.text(failed) == "refused /completing")
        let thrown = await Self.responder.respond(method: "POST", target: "/completing", body: Array("throw".utf8))
        #expect(thrown.status == 403 && Self.text(thrown) == "refused /completing")
    }
}
