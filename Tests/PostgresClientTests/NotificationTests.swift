import PostgresClient
import Testing

@Suite("PostgreSQL LISTEN/NOTIFY and lost sessions", TestDatabase.available)
struct NotificationTests {
    /// The bound on every wait below: a working server answers in milliseconds; reaching it
    /// fails the test rather than hanging it.
    static let patience = Duration.seconds(30)

    /// Waits until `count` notifications arrived (each wait returns as soon as one does).
    private func receive(_ count: Int, from listener: NotificationListener) throws -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while received.count < count {
            let batch = try listener.waitForNotifications(timeout: Self.patience)
            if batch.isEmpty { Issue.record("no notification within \(Self.patience)"); break }
            received += batch
        }
        return received
    }

    @Test func notificationsArriveAtCommitInCommitOrder() throws {
        let url = try TestDatabase.server().url
        let channel = TestDatabase.uniqueName("Events Channel")
        let listener = try NotificationListener(url)
        try listener.listen(channel)
        #expect(try listener.waitForNotifications(timeout: .zero).isEmpty)

        let first = try Connection(url)
        let second = try Connection(url)
        let marker = try Connection(url)
        try first.begin()
        try first.notify(channel: channel, payload: "first began, commits second")
        try second.begin()
        try second.notify(channel: channel, payload: "second began, commits first")
        // Not delivered while both are open: the marker, sent and committed after, comes first.
        try marker.notify(channel: channel, payload: "marker 1")
        #expect(try receive(1, from: listener).map(\.payload) == ["marker 1"])
        try second.commit()
        try first.commit()
        try marker.notify(channel: channel, payload: "marker 2")
        let received = try receive(3, from: listener)
        #expect(received.map(\.payload) == ["second began, commits first", "first began, commits second", "marker 2"])
        #expect(received.allSatisfy { $0.channel == channel })
        #expect(received.first?.senderPID == second.backendPID)

        // A rolled-back NOTIFY is never delivered.
        try first.transaction { c in try c.notify(channel: channel, payload: "kept") }
        #expect(throws: CancellationError.self) {
            try second.transaction { c in
                try c.notify(channel: channel, payload: "rolled back")
                throw CancellationError()
            }
        }
        try marker.notify(channel: channel, payload: "marker 3")
        #expect(try receive(2, from: listener).map(\.payload) == ["kept", "marker 3"])
    }

    /// A signalled wakeup ends a wait at once (before its timeout, with nothing) and keeps
    /// ending every later one given it; the session listens on undisturbed.
    @Test func aSignalledWakeupEndsTheWait() throws {
        let url = try TestDatabase.server().url
        let channel = TestDatabase.uniqueName("wakeup")
        let listener = try NotificationListener(url)
        try listener.listen(channel)
        let wakeup = try Wakeup()
        let notifier = try Connection(url)
        try notifier.notify(channel: channel, payload: "before the signal")
        #expect(try receive(1, from: listener).map(\.payload) == ["before the signal"])
        wakeup.signal()
        let clock = ContinuousClock()
        for _ in 0..<2 {
            let started = clock.now
            #expect(try listener.waitForNotifications(timeout: Self.patience, wakeup: wakeup).isEmpty)
            #expect(clock.now - started < Self.patience)
        }
        try notifier.notify(channel: channel, payload: "after the signal")
        #expect(try receive(1, from: listener).map(\.payload) == ["after the signal"])
    }

    @Test func aTerminatedListenerIsDetectedAndReconnects() throws {
        let url = try TestDatabase.server().url
        let channel = TestDatabase.uniqueName("feed")
        let listener = try NotificationListener(url)
        try listener.listen(channel)
        let admin = try Connection(url)
        let oldPID = listener.backendPID
        #expect(try terminate(oldPID, from: admin))
        do throws(PostgresError) {
            // The terminated session's FATAL error and end of file arrive on the socket.
            for _ in 0..<3 { _ = try listener.waitForNotifications(timeout: Self.patience) }
            Issue.record("the lost session went unnoticed")
        } catch {
            #expect(error.isConnectionLost, "\(error)")
        }
        #expect(listener.status == .bad)
        try listener.reconnect()
        #expect(listener.backendPID != oldPID)
        try admin.notify(channel: channel, payload: "after reconnect")
        #expect(try receive(1, from: listener).map(\.payload) == ["after reconnect"])
    }

    @Test func aTerminatedConnectionFailsItsNextQueryAndResets() throws {
        let connection = try TestDatabase.connect()
        let admin = try TestDatabase.connect()
        let oldPID = connection.backendPID
        #expect(try terminate(oldPID, from: admin))
        // The backend said why before closing: 57P01, or a broken connection if that was not read.
        do throws(PostgresError) {
            _ = try connection.query("SELECT 1")
            Issue.record("a terminated session answered")
        } catch {
            #expect(error.isConnectionLost, "\(error)")
            #expect(error.isUnavailable)
        }
        #expect(connection.status == .bad)
        try connection.reset()
        #expect(connection.status == .ok)
        #expect(connection.backendPID != oldPID)
        #expect(try connection.queryPrepared("SELECT 2").row(0).int64(0) == 2)
    }
}
