/// What browsers and proxies may keep of a response: nothing, unless a response to a request
/// that carried no credential says otherwise.
///
/// Applied by the server to every response it sends (and by `InProcessResponder` alike), so no
/// route can forget it: a signed-in user's data, a share-link holder's document and a freshly
/// issued token never stay in a cache.
enum CachingRule {
    /// Query arguments that carry a credential (`?token=` of live feeds, `?id=` and `?deviceid=` of OsmAnd).
    static let credentialQueryNames: Set<String> = ["token", "id", "deviceid"]

    /// Whether a request carried a credential: an `Authorization` header, a credential query
    /// argument, or a credential path segment (`CredentialPaths`) — asked in that order, each
    /// only if the one before said no (most API requests stop at the header).
    static func isCredentialed(path: String, hasAuthorization: () -> Bool, hasQueryArgument: (String) -> Bool,
                               credentialPaths: CredentialPaths) -> Bool {
        hasAuthorization() || credentialQueryNames.contains(where: hasQueryArgument) || credentialPaths.holdsCredential(path)
    }

    /// Sets `Cache-Control: no-store` on `response` when it sets none, and in place of what it
    /// sets when the request carried a credential.
    static func apply(to response: inout Response, credentialed: Bool) {
        if credentialed || response.header("Cache-Control") == nil {
            response.setHeader("Cache-Control", "no-store")
        }
    }
}
