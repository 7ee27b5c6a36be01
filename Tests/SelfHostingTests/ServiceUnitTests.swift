import Foundation
import ProcessTestSupport
import Testing

/// `deploy/fod.service`: hardened (systemd's own rating of its exposure at most 2.0, where
/// `systemd-analyze` is installed), and agreeing with the proxy configurations on where fod
/// listens and whom it trusts.
@Suite struct ServiceUnitTests {
    static let unit = "\(packageRoot)/deploy/fod.service"

    @Test(.enabled(if: installedProgram("systemd-analyze") != nil, "systemd-analyze is not installed: the unit's exposure is not rated"))
    func systemdRatesTheUnitsExposureAtMostTwo() throws {
        let analyze = try #require(installedProgram("systemd-analyze"))
        let (_, output) = try runToCompletion(analyze, ["security", "--offline=true", "--no-pager", Self.unit])
        // "→ Overall exposure level for fod.service: 1.2 OK 🙂"
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level for fod.service:") }, "\(output)")
        let figure = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        let exposure = try #require(figure, "\(line)")
        #expect(exposure <= 2.0, "\(output)")
    }

    @Test func theUnitAndTheProxiesAgreeOnTheAddress() throws {
        let unit = try String(contentsOfFile: Self.unit, encoding: .utf8)
        let execStart = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        for flag in ["--bind 127.0.0.1", "--port 8080", "--trusted-proxies 127.0.0.1", "--data /var/lib/fod"] {
            #expect(execStart.contains(flag), "\(execStart)")
        }
        #expect(unit.contains("StateDirectory=fod"))
        for proxy in ["nginx.conf", "Caddyfile"] {
            let text = try String(contentsOfFile: "\(packageRoot)/deploy/\(proxy)", encoding: .utf8)
            #expect(text.contains("127.0.0.1:8080"), "\(proxy) does not proxy to 127.0.0.1:8080")
        }
    }
}
