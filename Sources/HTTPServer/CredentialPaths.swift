/// Where a request path holds a credential, whatever its method and whether or not a route
/// matches it: the segment at the place of a credential parameter (`Route.credentialParameters`)
/// of any route, once the segments before it match that route's (literals compared ignoring
/// ASCII case, other parameters matching anything). `/s/{token}` makes the second segment of
/// `OPTIONS /s/x`, `DELETE /S/x/y` and `GET /s/x` a credential alike.
///
/// Built by the `Router` from its routes; logs write `redacting(path)`, never the path itself.
public struct CredentialPaths: Sendable {
    /// One credential place: the segments before it (nil: any segment).
    private struct Place: Sendable, Equatable {
        let before: [[UInt8]?]
    }

    private var places: [Place] = []

    public init() {}

    /// Notes the credential places of `route`'s pattern.
    mutating func add(_ route: Route) {
        var before: [[UInt8]?] = []
        for segment in route.segments {
            switch segment {
            case .literal(let bytes):
                before.append(bytes.map(Self.lowercased))
            case .parameter(let name):
                if Route.credentialParameters.contains(name) {
                    let place = Place(before: before)
                    if !places.contains(place) { places.append(place) }
                }
                before.append(nil)
            }
        }
    }

    /// Adds the credential places of `other` (a router that logs paths another router serves).
    public mutating func formUnion(_ other: CredentialPaths) {
        for place in other.places where !places.contains(place) { places.append(place) }
    }

    /// Whether `path` holds a credential segment.
    public func holdsCredential(_ path: String) -> Bool {
        guard !places.isEmpty else { return false }
        let parts = Route.splitBytes(path)
        return parts.indices.contains { isCredential(at: $0, in: parts) }
    }

    /// `path` with each credential segment written `<redacted>` (itself when it holds none).
    public func redacting(_ path: String) -> String {
        guard !places.isEmpty else { return path }
        let parts = Route.splitBytes(path)
        guard parts.indices.contains(where: { isCredential(at: $0, in: parts) }) else { return path }
        let shown = parts.indices.map { index in
            isCredential(at: index, in: parts) ? "<redacted>" : String(Substring(parts[index]))
        }
        return "/" + shown.joined(separator: "/")
    }

    private func isCredential(at index: Int, in parts: [Substring.UTF8View]) -> Bool {
        places.contains { place in
            place.before.count == index && zip(place.before, parts).allSatisfy { expected, part in
                expected.map { $0.elementsEqual(part.lazy.map(Self.lowercased)) } ?? true
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
