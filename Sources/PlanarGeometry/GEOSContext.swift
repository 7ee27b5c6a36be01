internal import CGEOS

/// Owns one GEOS context handle (`GEOSContextHandle_t`) and the messages GEOS reports on it.
///
/// Threading: a GEOS context must not be used by two threads at once, so this class is not
/// `Sendable`. Create one per call (they are cheap: one small allocation) or keep one per
/// thread; every public API of this module creates its own, which makes those APIs safe to call
/// from any number of threads concurrently.
///
/// Lifetime: the handle is freed in `deinit`. ``Geometry`` values keep their context alive, so
/// geometries are always destroyed before the context that made them.
package final class GEOSContext {
    /// The handle; valid until `deinit`. Never escapes this module's owner types.
    let handle: GEOSContextHandle_t
    private let messages: MessageSink

    /// Collects GEOS's error and notice messages for this context (written from GEOS callbacks
    /// on the thread using the context).
    private final class MessageSink {
        var lastError: String?
        var lastNotice: String?
    }

    /// A fresh context with error and notice handlers installed.
    ///
    /// - Throws: `PlanarGeometryError.Code.geos` when GEOS cannot allocate a context.
    package init() throws(PlanarGeometryError) {
        guard let handle = GEOS_init_r() else {
            throw .geos("GEOS_init_r", "could not allocate a context")
        }
        self.handle = handle
        messages = MessageSink()
        let userData = Unmanaged.passUnretained(messages).toOpaque()
        // The sink outlives the handle: it is released only after `deinit` finishes the context.
        _ = GEOSContext_setErrorMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<MessageSink>.fromOpaque(userData).takeUnretainedValue().lastError = String(cString: message)
        }, userData)
        _ = GEOSContext_setNoticeMessageHandler_r(handle, { message, userData in
            guard let message, let userData else { return }
            Unmanaged<MessageSink>.fromOpaque(userData).takeUnretainedValue().lastNotice = String(cString: message)
        }, userData)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// The GEOS library version, e.g. `3.11.1-CAPI-1.17.1`.
    package static var version: String {
        guard let text = GEOSversion() else { return "unknown" }
        return String(cString: text)
    }

    /// The last error GEOS reported on this context, cleared by reading it.
    func takeLastError() -> String? {
        defer { messages.lastError = nil }
        return messages.lastError
    }

    /// The one place C results are checked: a non-nil result passes through; nil becomes a
    /// `.geos` error carrying GEOS's message for `operation`.
    func check<T>(_ result: T?, _ operation: String) throws(PlanarGeometryError) -> T {
        guard let result else { throw .geos(operation, takeLastError()) }
        return result
    }

    /// Checks a GEOS status code where 0 means failure (the C API's convention for `int`
    /// returns).
    func check(status: Int32, _ operation: String) throws(PlanarGeometryError) {
        guard status != 0 else { throw .geos(operation, takeLastError()) }
    }
}
