import Foundation
import HTTPTestSupport
import ProcessTestSupport
import Testing

/// The shipped reverse-proxy configurations (`deploy/nginx.conf`, `deploy/Caddyfile`), run as
/// they are — only the name, ports and certificate swapped for a throwaway self-signed one on
/// loopback — in front of a real `fod serve --trusted-proxies 127.0.0.1`: HTTPS works, a live
/// feed streams through unbuffered, and each client's own address (127.0.0.2, 127.0.0.3) reaches
/// the per-address limits, a forged `X-Forwarded-For` not.
@Suite struct TLSProxyTests {
    @Test(.enabled(if: ReverseProxy.nginx.isInstalled, "nginx is not installed (apt-get install nginx): deploy/nginx.conf untested"))
    func nginx() throws { try Self.check(.nginx) }

    @Test(.enabled(if: ReverseProxy.caddy.isInstalled, "Caddy is not installed (apt-get install caddy): deploy/Caddyfile untested"))
    func caddy() throws { try Self.check(.caddy) }

    static func check(_ kind: ReverseProxy) throws {
        let directory = try scratchDirectory("fod-tls-")
        defer { removeScratch(directory) }
        let server = try FodProcess(dataDirectory: directory + "/data",
                                    extraArguments: ["--trusted-proxies", "127.0.0.1", "--sign-in-address-limit", "2"])
        defer { server.stop() }
        let proxy = try kind.start(in: directory, upstreamPort: server.port)
        defer { proxy.stop() }
        let direct = try HTTPTestClient(port: server.port)
        let account = try TestAccount.make("proxied", on: direct)
        let group = try direct.request("POST", "/v1/groups", token: account.token, json: #"{"name":"Family","deviceId":"\#(account.deviceID)"}"#)
        let groupID = try #require(group.json["id"].string, "\(group.text)")

        // HTTPS, verified against the throwaway certificate.
        let health = try proxy.curl(["-o", "/dev/null", "-w", "%{http_code}", "\(proxy.base)/healthz"])
        #expect(health == "200")
        #expect(try proxy.curl(["\(proxy.base)/"]).contains("<html"))

        // A live feed through the proxy: the snapshot, then a fix posted meanwhile, as it happens.
        let stream = try proxy.stream(["-H", "Authorization: Bearer \(account.token)", "\(proxy.base)/v1/groups/\(groupID)/live"])
        defer { stream.stop(signal: SIGKILL) }
        #expect(stream.output.firstLine(startingWith: "event: snapshot", waitingSeconds: 60) != nil, "\(stream.output.text)")
        let posted = try direct.request("POST", "/v1/devices/\(account.deviceID)/locations", token: account.deviceToken,
                                        json: #"{"location":[-74.0445,40.6892]}"#)
        #expect((200..<300).contains(posted.status), "\(posted.text)")
        // Unbuffered, the event arrives while the stream stays open (buffered, it would sit in
        // the proxy until 4–8 KiB of heartbeats had piled up behind it: minutes).
        #expect(stream.output.firstLine(startingWith: "event: location", waitingSeconds: 60) != nil, "\(stream.output.text)")

        // Sign-in attempts count per client address, as the proxy names it (--sign-in-address-limit 2).
        func signIn(from address: String, forwardedFor: String? = nil, attempt: Int) throws -> String {
            try proxy.curl(["--interface", address, "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json"]
                           + (forwardedFor.map { ["-H", "X-Forwarded-For: \($0)"] } ?? [])
                           + ["-d", #"{"email":"nobody\#(attempt)@example.org","password":"wrong-password"}"#, "\(proxy.base)/v1/sessions"])
        }
        #expect(try signIn(from: "127.0.0.2", attempt: 1) == "401")
        #expect(try signIn(from: "127.0.0.2", attempt: 2) == "401")
        #expect(try signIn(from: "127.0.0.2", attempt: 3) == "429")
        // Another client behind the same proxy has its own count: the proxy's address is not the client's.
        #expect(try signIn(from: "127.0.0.3", attempt: 4) == "401")
        // A client cannot pick its own address: the header it sends is not believed.
        #expect(try signIn(from: "127.0.0.2", forwardedFor: "127.0.0.9", attempt: 5) == "429")
    }
}

/// A reverse proxy running a shipped configuration on loopback ports, with a throwaway
/// self-signed certificate for `localhost`.
enum ReverseProxy {
    case nginx, caddy

    var program: String? {
        switch self {
        case .nginx: installedProgram("nginx")
        case .caddy: installedProgram("caddy")
        }
    }

    var isInstalled: Bool { program != nil && installedProgram("openssl") != nil && installedProgram("curl") != nil }

    /// Starts the proxy in `directory` in front of `127.0.0.1:upstreamPort`; returns once it listens.
    func start(in directory: String, upstreamPort: UInt16) throws -> RunningProxy {
        guard let program else { throw TestFailure("\(self) is not installed") }
        let certificate = directory + "/cert.pem", key = directory + "/key.pem"
        let made = try runToCompletion(installedProgram("openssl") ?? "openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", key, "-out", certificate])
        guard made.status == 0 else { throw TestFailure("openssl: \(made.output)") }
        let httpsPort = try freePort(), httpPort = try freePort()
        let (arguments, environment, readyLine) = switch self {
        case .nginx: try Self.configureNginx(in: directory, upstreamPort: upstreamPort, httpsPort: httpsPort, httpPort: httpPort,
                                             certificate: certificate, key: key)
        case .caddy: try Self.configureCaddy(in: directory, upstreamPort: upstreamPort, httpsPort: httpsPort, httpPort: httpPort,
                                             certificate: certificate, key: key)
        }
        let process = try ChildProgram(program, arguments, environment: environment)
        guard process.output.firstLine(containing: readyLine, waitingSeconds: 60) != nil else {
            process.stop()
            throw TestFailure("\(self) did not start: \(process.output.text)")
        }
        return RunningProxy(process: process, httpsPort: httpsPort, certificate: certificate)
    }

    /// deploy/nginx.conf as the site, under the main configuration Debian's /etc/nginx/nginx.conf
    /// would be, in the foreground, logging to standard error: it says it starts its workers once
    /// its sockets listen.
    private static func configureNginx(in directory: String, upstreamPort: UInt16, httpsPort: UInt16, httpPort: UInt16,
                                       certificate: String, key: String) throws -> ([String], [String: String], String) {
        var site = try shipped("nginx.conf")
        try site.swap("127.0.0.1:8080", "127.0.0.1:\(upstreamPort)")
        try site.swap("listen 443 ssl http2;", "listen 127.0.0.1:\(httpsPort) ssl http2;")
        try site.swap("listen [::]:443 ssl http2;\n", "")
        try site.swap("listen 80;", "listen 127.0.0.1:\(httpPort);")
        try site.swap("listen [::]:80;\n", "")
        try site.swap("/etc/letsencrypt/live/fod.example.org/fullchain.pem", certificate)
        try site.swap("/etc/letsencrypt/live/fod.example.org/privkey.pem", key)
        try site.swap("root /var/www/html;", "root \(directory);")
        try site.swap("fod.example.org", "localhost")
        try site.write(toFile: directory + "/fod.conf", atomically: true, encoding: .utf8)
        let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(directory)/\($0);" }
        let main = """
            daemon off;
            pid \(directory)/nginx.pid;
            error_log stderr notice;
            worker_processes 1;
            events { worker_connections 64; }
            http {
                access_log \(directory)/access.log;
                \(temporary.joined(separator: "\n    "))
                include \(directory)/fod.conf;
            }
            """
        try main.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        // Workers may run as nobody: they must reach the scratch directory.
        chmod(directory, 0o755)
        return (["-p", directory, "-c", directory + "/nginx.conf", "-e", "stderr"], [:], "start worker process")
    }

    /// deploy/Caddyfile with the throwaway certificate and loopback ports, its state in the
    /// scratch directory, in the foreground: it logs when it serves.
    private static func configureCaddy(in directory: String, upstreamPort: UInt16, httpsPort: UInt16, httpPort: UInt16,
                                       certificate: String, key: String) throws -> ([String], [String: String], String) {
        var site = try shipped("Caddyfile")
        try site.swap("127.0.0.1:8080", "127.0.0.1:\(upstreamPort)")
        try site.swap("fod.example.org {", "localhost:\(httpsPort) {\n\ttls \(certificate) \(key)")
        let global = "{\n\tadmin off\n\thttp_port \(httpPort)\n\thttps_port \(httpsPort)\n\tauto_https disable_redirects\n}\n"
        try (global + site).write(toFile: directory + "/Caddyfile", atomically: true, encoding: .utf8)
        return (["run", "--config", directory + "/Caddyfile", "--adapter", "caddyfile"],
                ["HOME": directory, "XDG_DATA_HOME": directory + "/data", "XDG_CONFIG_HOME": directory + "/config"],
                "serving initial configuration")
    }

    /// A file of `deploy/`.
    private static func shipped(_ name: String) throws -> String {
        try String(contentsOfFile: "\(packageRoot)/deploy/\(name)", encoding: .utf8)
    }
}

/// A proxy started by `ReverseProxy.start`; `stop()` ends it.
final class RunningProxy: Sendable {
    let process: ChildProgram
    let httpsPort: UInt16
    let certificate: String

    init(process: ChildProgram, httpsPort: UInt16, certificate: String) {
        self.process = process
        self.httpsPort = httpsPort
        self.certificate = certificate
    }

    var base: String { "https://localhost:\(httpsPort)" }

    /// curl's arguments that reach the proxy by name and trust only the throwaway certificate.
    private var tls: [String] { ["-sS", "--cacert", certificate, "--resolve", "localhost:\(httpsPort):127.0.0.1"] }

    /// Runs curl through the proxy; returns what it printed.
    func curl(_ arguments: [String]) throws -> String {
        let (status, output) = try runToCompletion(installedProgram("curl") ?? "curl", tls + ["--max-time", "60"] + arguments)
        guard status == 0 else { throw TestFailure("curl \(arguments.joined(separator: " ")): \(output)") }
        return output
    }

    /// Starts curl on an endless stream through the proxy.
    func stream(_ arguments: [String]) throws -> ChildProgram {
        try ChildProgram(installedProgram("curl") ?? "curl", tls + ["-N"] + arguments)
    }

    func stop() { process.stop() }
}

/// A program running as this process's child, never detached (Foundation learns of a child's
/// end when every copy of a descriptor it gave it is closed, which a daemon never does), its
/// output and errors collected as they come.
final class ChildProgram: Sendable {
    let process: Process
    let output: PipeDrain
    private let exit: ExitWatch

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        exit = ExitWatch(process)
        try process.run()
        output = PipeDrain(pipe.fileHandleForReading)
    }

    /// `signal`, then SIGKILL if it has not ended within 30 s. Children of the test process
    /// inherit its blocked SIGTERM: only programs that set their own signal mask (nginx, Caddy,
    /// fod) end on it; curl needs SIGKILL.
    func stop(signal: Int32 = SIGTERM) {
        kill(process.processIdentifier, signal)
        if !exit.wait(seconds: 30) {
            kill(process.processIdentifier, SIGKILL)
            exit.wait(seconds: 30)
        }
    }
}

extension String {
    /// Replaces `old` with `new`, which must be there: a shipped file that changed shape fails the
    /// test rather than being tested half-configured.
    mutating func swap(_ old: String, _ new: String) throws {
        guard contains(old) else { throw TestFailure("expected \(old.debugDescription) in the shipped configuration") }
        self = replacingOccurrences(of: old, with: new)
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (the kernel picked it).
func freePort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestFailure("socket failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("bind failed") }
    return UInt16(bigEndian: address.sin_port)
}
