import Foundation
import HTTPTestSupport
import Synchronization
import Timestamps

/// Clients that keep a cluster busy while its database goes away and comes back: one thread
/// per device, each alternating a post of one fix (a unique id) and a read of its history, on
/// the nodes in turn, until `stop`. It records which fixes were acknowledged (200), and every
/// reply that is neither a success nor a 503 with one of `allowedUnavailableCodes` (a 500, a
/// hang, a crash of the node).
///
/// `serving(since:)` says when every kind of request had succeeded again on every thread after
/// a moment: how long the cluster took to serve again.
final class IngestLoad: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `state`'s mutex.
    enum Kind: Sendable { case write, read }

    struct Outcome: Sendable {
        var acknowledged: [String: Set<String>] = [:]  // device id → fix ids acknowledged
        var unexpected: [String] = []
        var unavailable = 0
        /// When each (thread, kind)'s requests succeeded, in order: (began, ended).
        var successes: [String: [(began: Date, ended: Date)]] = [:]
        var requests = 0
    }

    let cluster: Cluster
    let devices: [(id: String, token: String)]
    let userToken: String
    let allowedUnavailableCodes: Set<String>
    private let state = Mutex(Outcome())
    private let stopping = Atomic<Bool>(false)
    private let group = DispatchGroup()

    init(cluster: Cluster, userToken: String, devices: [(id: String, token: String)],
         allowedUnavailableCodes: Set<String> = ["storage_unavailable"]) {
        self.cluster = cluster
        self.userToken = userToken
        self.devices = devices
        self.allowedUnavailableCodes = allowedUnavailableCodes
    }

    /// Makes a user with `threads` devices on `cluster` and starts the clients.
    static func start(on cluster: Cluster, threads: Int, allowedUnavailableCodes: Set<String> = ["storage_unavailable"]) throws -> IngestLoad {
        let user = try cluster.signUp("load-\(UUID().uuidString.prefix(8))", on: 0)
        let devices = try (0..<threads).map { _ in try cluster.addDevice(token: user.token, on: 0) }
        let load = IngestLoad(cluster: cluster, userToken: user.token, devices: devices, allowedUnavailableCodes: allowedUnavailableCodes)
        for (index, device) in devices.enumerated() {
            load.group.enter()
            Thread { [load] in
                load.run(thread: index, device: device)
                load.group.leave()
            }.start()
        }
        return load
    }

    /// Stops the clients (each finishes its request in flight) and returns what they saw.
    func stop() -> Outcome {
        stopping.store(true, ordering: .relaxed)
        group.wait()
        return state.withLock { $0 }
    }

    /// Polls (at most `limitSeconds`) until every thread has had a write and a read succeed
    /// that began at or after `moment`; returns the seconds from `moment` to the last of those
    /// first successes, or nil when some never came.
    func serving(since moment: Date, limitSeconds: Double = 60) -> Double? {
        let deadline = Date().addingTimeInterval(limitSeconds)
        let keys = devices.indices.flatMap { ["\($0)/write", "\($0)/read"] }
        while Date() < deadline {
            let firsts: [Date?] = state.withLock { outcome in
                keys.map { key in outcome.successes[key]?.first { $0.began >= moment }?.ended }
            }
            if firsts.allSatisfy({ $0 != nil }) {
                return firsts.compactMap { $0 }.map { $0.timeIntervalSince(moment) }.max() ?? 0
            }
            // Polling the clients' record; the clients themselves are what waits.
            usleep(20_000)
        }
        return nil
    }

    private func run(thread: Int, device: (id: String, token: String)) {
        var n = 0
        while !stopping.load(ordering: .relaxed) {
            let node = (thread + n) % cluster.nodes.count
            let kind: Kind = n % 2 == 0 ? .write : .read
            let id = "t\(thread)-\(n)"
            let began = Date()
            do {
                let reply: HTTPTestClient.Reply
                switch kind {
                case .write:
                    reply = try cluster.post([(lon: Double(thread), lat: Double(n % 80), ts: Timestamp.nowMilliseconds(), id: id)],
                                             device: device, on: node)
                case .read:
                    reply = try cluster.client(node).get("/v1/devices/\(device.id)/locations?limit=1", token: userToken)
                }
                record(reply, kind: kind, thread: thread, device: device.id, fix: id, node: node, began: began)
            } catch {
                state.withLock { $0.unexpected.append("thread \(thread) \(kind) on node \(node): \(error)") }
            }
            n += 1
        }
    }

    private func record(_ reply: HTTPTestClient.Reply, kind: Kind, thread: Int, device: String, fix: String, node: Int, began: Date) {
        let ended = Date()
        state.withLock { outcome in
            outcome.requests += 1
            if reply.status == 200 {
                if kind == .write { outcome.acknowledged[device, default: []].insert(fix) }
                outcome.successes["\(thread)/\(kind)", default: []].append((began, ended))
            } else if reply.status == 503, let code = reply.json["error"]["code"].string, allowedUnavailableCodes.contains(code) {
                outcome.unavailable += 1
            } else {
                outcome.unexpected.append("\(kind) on node \(node): \(reply.status) \(reply.text.prefix(300))")
            }
        }
    }

    /// The acknowledged fixes of every device that the cluster does not have now (read on node 0).
    func missing(from outcome: Outcome) throws -> [String] {
        var missing: [String] = []
        for device in devices {
            let history = try cluster.client(0).get("/v1/devices/\(device.id)/locations?limit=10000", token: userToken)
            guard history.status == 200 else { throw TestFailure("history of \(device.id): \(history.status) \(history.text)") }
            let stored = Set((0..<history.json["locations"].count).compactMap { history.json["locations"][$0]["id"].string })
            missing += (outcome.acknowledged[device.id] ?? []).subtracting(stored)
        }
        return missing.sorted()
    }
}
