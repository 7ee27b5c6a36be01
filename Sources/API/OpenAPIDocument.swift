import Foundation
import HTTPServer

/// The OpenAPI description of this API (the repository's `docs/openapi.yaml`), read once at
/// start-up and served from memory at `GET /openapi.yaml`, so clients and test tools
/// (schemathesis) can fetch the contract from the server they talk to.
public struct OpenAPIDocument: Sendable {
    /// The document's bytes; nil when the file was not found at start-up.
    let bytes: [UInt8]?

    /// Reads `path` (a missing file leaves the route answering 404).
    public init(path: String) {
        bytes = FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Whether the document was found.
    public var isLoaded: Bool { bytes != nil }

    var routes: [Route] {
        let bytes = self.bytes
        return [
            Route("GET", "/openapi.yaml", .inline { _ in
                guard let bytes else {
                    throw HTTPError(status: 404, code: .notFound, message: "the OpenAPI document is not installed (docs/ missing)")
                }
                var response = Response(status: 200, contentType: "application/yaml; charset=utf-8", bytes: bytes)
                response.setHeader("Cache-Control", "no-cache")
                return response
            }),
        ]
    }
}
