import CCurl

/// The one owner of a libcurl easy handle (`CURL *`), freed in `deinit`. A handle keeps its
/// connections open between requests, so a client reuses it for the same destination.
///
/// `@unchecked Sendable`: used by one thread at a time — a request checks it out of
/// `OutboundClient`'s pool, runs on it, and checks it back in.
final class CurlEasy: @unchecked Sendable {
    let handle: OpaquePointer

    init?() {
        CurlGlobal.initializeOnce()
        guard let handle = curl_easy_init() else { return nil }
        self.handle = OpaquePointer(handle)
    }

    deinit { curl_easy_cleanup(UnsafeMutableRawPointer(handle)) }

    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(handle) }

    /// Forgets the options of the last request; live connections stay.
    func reset() { curl_easy_reset(raw) }

    func set(_ option: CURLoption, _ value: Int) throws(CurlFailure) { try check(fod_curl_setopt_long(raw, option, value)) }
    func set(_ option: CURLoption, _ value: UnsafePointer<CChar>) throws(CurlFailure) { try check(fod_curl_setopt_string(raw, option, value)) }
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(CurlFailure) {
        try check(fod_curl_setopt_pointer(raw, option, pointer))
    }
    func set(_ option: CURLoption, list: CurlStringList) throws(CurlFailure) { try check(fod_curl_setopt_slist(raw, option, list.head)) }
    func set(_ option: CURLoption, callback: fod_curl_data_callback) throws(CurlFailure) {
        try check(fod_curl_setopt_callback(raw, option, callback))
    }

    func perform() -> CURLcode { curl_easy_perform(raw) }

    var responseCode: Int {
        var code = 0
        _ = fod_curl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    private func check(_ code: CURLcode) throws(CurlFailure) {
        guard code == CURLE_OK else { throw CurlFailure(code: code) }
    }
}

/// A libcurl error code with its text.
struct CurlFailure: Error, CustomStringConvertible {
    let code: CURLcode
    var description: String { curl_easy_strerror(code).map { String(cString: $0) } ?? "curl error \(code.rawValue)" }
}

/// The one owner of a `curl_slist`, freed in `deinit`; kept alive for the request that uses it.
final class CurlStringList {
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    init(_ strings: [String]) {
        for string in strings {
            guard let appended = curl_slist_append(head, string) else { continue }
            head = appended
        }
    }

    deinit { curl_slist_free_all(head) }
}

/// `curl_global_init`, once per process, before the first handle.
enum CurlGlobal {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    static func initializeOnce() { _ = initialized }
}
