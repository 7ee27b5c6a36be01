import Dispatch
import HTTPServer
import Synchronization
import Testing
import Timestamps
import Tracking
@testable import API

/// A sender's round (issue #43): its channels are sent side by side, each channel's deliveries
/// in event order, and a channel stops at its first delivery not delivered.
struct DeliveryRoundTests {
    /// Answers every request at once, except that channel `a`'s first waits (at most 10 s) until
    /// channel `b`'s first has arrived — a round that sent one channel after the other would wait
    /// it out — and `b`'s second gets a 503. Records the delivery ids by URL, in arrival order.
    final class Transport: NotificationTransport {
        let arrived = Mutex<[String: [String]]>([:])
        let bArrived = DispatchSemaphore(value: 0)
        let waitedForB = Mutex<Bool?>(nil)

        func refusal(for url: String) -> DestinationRefusal? { nil }

        func send(_ request: NotificationRequest) -> TransportResult {
            let id = request.headers.first { $0.name == "webhook-id" }?.value ?? "?"
            let count = arrived.withLock { table in
                table[request.url, default: []].append(id)
                return table[request.url, default: []].count
            }
            if request.url.hasSuffix("/b") && count == 1 { bArrived.signal() }
            if request.url.hasSuffix("/a") && count == 1 {
                let came = bArrived.wait(timeout: .now() + 10) == .success
                waitedForB.withLock { $0 = came }
            }
            let status = request.url.hasSuffix("/b") && count == 2 ? 503 : 204
            return TransportResult(httpStatus: status, retryAfterSeconds: nil, error: nil)
        }
    }

    static func job(_ channel: Channel, _ n: Int) -> DeliveryJob {
        let delivery = Delivery(id: DeliveryID("\(channel.name)\(n)"), sequence: Int64(n), channelID: channel.id, groupID: GroupID("g"),
                                eventID: EventID(Int64(n)), eventType: "enter", payload: "{}", status: .pending, attempts: 0,
                                nextAttemptAt: 0, lastAttemptAt: nil, httpStatus: nil, error: nil, createdAt: 0)
        return DeliveryJob(delivery: delivery, channel: channel)
    }

    static func channel(_ name: String) -> Channel {
        Channel(id: ChannelID(name), userID: UserID("u"), name: name, type: .webhook, url: "http://receiver.test/\(name)", token: nil,
                secret: nil, enabled: true, disabledReason: nil, failingSince: nil, createdAt: Timestamp(millisecondsSince1970: 0))
    }

    @Test func aRoundsChannelsGoSideBySideEachInOrderAndAFailureHoldsItsChannelBack() throws {
        let storage = try TestStore.open()
        defer { storage.close() }
        let transport = Transport()
        let worker = DeliveryWorker(store: storage.store, transport: transport, webMapURL: nil, logger: Logger(level: .error))
        let a = Self.channel("a"), b = Self.channel("b")
        // Interleaved as a lease may return them: each channel's in its order.
        let jobs = [Self.job(a, 1), Self.job(b, 2), Self.job(a, 3), Self.job(b, 4), Self.job(b, 5), Self.job(a, 6)]
        let sent = worker.send(jobs, leasedAt: Timestamp.nowMilliseconds())
        #expect(transport.waitedForB.withLock { $0 } == true)
        let arrived = transport.arrived.withLock { $0 }
        #expect(arrived["http://receiver.test/a"] == ["a1", "a3", "a6"])
        #expect(arrived["http://receiver.test/b"] == ["b2", "b4"])
        // b4 failed: b5 must not overtake it, so it is released unsent.
        #expect(sent.unattempted == [DeliveryID("b5")])
        #expect(sent.attempts.map(\.deliveryID.rawValue) == ["a1", "a3", "a6", "b2", "b4"])
        #expect(sent.attempts.map { $0.outcome == .delivered } == [true, true, true, true, false])
    }

    @Test func sideBySideKeepsTheItemsOrder() {
        let outputs = SideBySide.map(Array(0..<20), name: "test-side") { $0 * 2 }
        #expect(outputs == Array(0..<20).map { $0 * 2 })
        #expect(SideBySide.map([Int](), name: "test-side") { $0 }.isEmpty)
    }
}
