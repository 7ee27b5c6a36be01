extension HTTPServer {
    /// How the server listens and what it allows. Defaults work out of the box.
    public struct Configuration: Sendable {
        /// IPv4 address to bind (`0.0.0.0` = all interfaces).
        public var bindAddress: String = "0.0.0.0"
        /// TCP port; 0 picks a free one (see `HTTPServer.port` after `start`).
        public var port: UInt16 = 8080
        /// libmicrohttpd polling threads (each with its own epoll set); default: the core count.
        public var threadPoolSize: Int = System.coreCount
        /// Most open connections in all.
        public var connectionLimit: Int = 16_384
        /// Most open connections from one IP address (0 = no limit). libmicrohttpd counts TCP
        /// peers: behind a proxy, the proxy's connections.
        public var perIPConnectionLimit: Int = 1_024
        /// Proxies whose `X-Forwarded-For` names the client (`Request.remoteAddress`); none by default.
        public var trustedProxies = TrustedProxies()
        /// Seconds of inactivity after which an (unsuspended) connection is closed.
        public var connectionTimeoutSeconds: Int = 60
        /// libmicrohttpd's per-connection memory pool (request headers must fit).
        public var connectionMemoryLimit: Int = 16 * 1024
        /// Body limit of routes that set none (bytes).
        public var defaultMaxBodyBytes: Int = 1 << 20
        /// Bytes of a streamed request body held unread before its connection is suspended.
        public var streamingBodyBufferBytes: Int = 1 << 20
        /// The memory budget, anonymous cap and pace of request bodies.
        public var bodies = BodyLimits()
        /// How long shutdown waits for in-flight requests before closing anyway (seconds).
        public var shutdownGraceSeconds: Double = 10

        public init() {}
    }
}

/// Facts about the machine.
public enum System {
    /// Online CPU cores (at least 1).
    public static var coreCount: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? n : 1
    }
}

#if canImport(Glibc)
import Glibc
#endif
