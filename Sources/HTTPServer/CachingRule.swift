/// What browsers and proxies may keep of a response: nothing, unless a response to a request
/// that carried no credential says otherwise.
///
/// Applied by the server to every response it sends (and by `InProcessResponder` alike), so no
/// route can forget it: a signed-in user's data, a share-link holder's document and a freshly
/// issued token never stay in a cache.
enum CachingRule {
    /// Query arguments that carry a credential (`?token=` of live feeds, `?id=` and `?deviceid=` of OsmAnd).
    static let credentialQueryNames: Set<String> = ["token", "id", "deviceid"]

    /// Whether a request carried a credential: an `Authorization` header, a credential path
    /// segment (`CredentialPaths`), or a credential query argument.
    static func isCredentialed(path: String, hasAuthorization: Bool, queryNames: some Sequence<String>,
                               credentialPaths: CredentialPaths) -> Bool {
        hasAuthorization || queryNames.contains(where: credentialQueryNames.contains) || credentialPaths.holdsCredential(path)
    }

    /// Sets `Cache-Control: no-store` on `response` when it sets none, and in place of what it
    /// sets when the request carried a credential.
    static func apply(to response: inout Response, credentialed: Bool) {
        if credentialed || response.header("Cache-Control") == nil {
            response.setHeader("Cache-Control", "no-store")
        }
    }
}
