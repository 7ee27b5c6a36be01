import JSONCore
import StoreTestSupport
import Testing
import Timestamps
import Tracking

/// `NotificationStore`: channels, alerts checked in their transaction, the matcher as a durable
/// consumer (each event once per channel, the cursor past what it read), the queue's leases
/// (the oldest of each channel, one holder at a time) and the attempt records.
@Suite("Store conformance: notifications")
struct NotificationStoreConformance {
    static func channel(_ user: UserID, name: String = "hook", type: ChannelType = .webhook) -> Channel {
        Channel(id: .generate(), userID: user, name: name, type: type, url: "https://hooks.example.org/\(name)", token: nil,
                secret: type == .webhook ? StandardWebhooks.newSecret() : nil, enabled: true, disabledReason: nil, failingSince: nil,
                createdAt: Fixtures.time(Fixtures.t0))
    }

    static func alert(_ world: SharingWorld, by user: UserID, channel: ChannelID, place: PlaceID? = nil,
                      events: Set<PlaceCrossing> = [.enter, .exit]) -> Alert {
        Alert(id: .generate(), groupID: world.group, userID: user, channelID: channel, placeID: place, deviceID: nil, events: events,
              sinceEvent: .start, createdAt: Fixtures.time(Fixtures.t0))
    }

    /// The world's owner device leaves "home" and comes back: an exit and an enter event.
    /// A channel of the viewer's with an alert on the group, and the two deliveries (oldest
    /// first) that the matcher made of `placeEvents`.
    static func channelWithTwoDeliveries(_ store: any TrackingStore) async throws -> (hook: Channel, order: [DeliveryID]) {
        let world = try await SharingWorld.make(store)
        let hook = channel(world.viewer.id)
        try await store.insertChannel(hook, limit: 10)
        _ = try await store.insertAlert(alert(world, by: world.viewer.id, channel: hook.id), limit: 10)
        _ = try await placeEvents(store, world)
        _ = try store.matchAlerts(groupID: world.group, consumer: "notify", limit: 100) { AlertMatcher.deliveries($0) { $0.deliveryID.rawValue } }
        let order = try store.deliveries(channelID: hook.id, limit: 10).reversed().map(\.id)
        #expect(order.count == 2)
        return (hook, order)
    }

    static func placeEvents(_ store: any TrackingStore, _ world: SharingWorld) async throws -> PlaceID {
        try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000, longitude: 2.3500, latitude: 48.8500)])
        let home = Fixtures.circle(world.group, by: world.owner.id, longitude: 2.35, latitude: 48.85, name: "home")
        let shape = try home.shape()
        try await store.writePlaces { tx in try tx.insertPlace(home, shape: shape) }
        try await Fixtures.append(store, world.device.id, [Fixtures.fix(2_000, longitude: 2.3800, latitude: 48.8500)])
        try await Fixtures.append(store, world.device.id, [Fixtures.fix(3_000, longitude: 2.3501, latitude: 48.8500)])
        return home.id
    }

    @Test(arguments: StoreFactory.all)
    func channelsBelongToTheirUserAndAreLimited(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let first = Self.channel(world.viewer.id, name: "a"), second = Self.channel(world.viewer.id, name: "b", type: .ntfy)
            try await store.insertChannel(first, limit: 2)
            try await store.insertChannel(second, limit: 2)
            await #expect(throws: TrackingError.self) { try await store.insertChannel(Self.channel(world.viewer.id, name: "c"), limit: 2) }
            #expect(try store.channels(userID: world.viewer.id).map(\.name).sorted() == ["a", "b"])
            #expect(try store.channels(userID: world.owner.id).isEmpty)
            var changed = first
            changed.enabled = false
            changed.disabledReason = "tired"
            #expect(try await store.updateChannel(changed))
            #expect(try store.channel(id: first.id) == changed)
            #expect(try await !store.deleteChannel(id: first.id, userID: world.owner.id))
            #expect(try await store.deleteChannel(id: first.id, userID: world.viewer.id))
            #expect(try store.channel(id: first.id) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func alertsAreCheckedAndGoWithTheirMembership(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let mine = Self.channel(world.viewer.id), theirs = Self.channel(world.owner.id)
            try await store.insertChannel(mine, limit: 10)
            try await store.insertChannel(theirs, limit: 10)
            let stranger = try await Fixtures.user(store, "eve")
            // Not a member; someone else's channel; a place of no group.
            await #expect(throws: TrackingError.self) { _ = try await store.insertAlert(Self.alert(world, by: stranger.id, channel: mine.id), limit: 10) }
            await #expect(throws: TrackingError.self) { _ = try await store.insertAlert(Self.alert(world, by: world.viewer.id, channel: theirs.id), limit: 10) }
            await #expect(throws: TrackingError.self) {
                _ = try await store.insertAlert(Self.alert(world, by: world.viewer.id, channel: mine.id, place: PlaceID("p_nowhere")), limit: 10)
            }
            let alert = try await store.insertAlert(Self.alert(world, by: world.viewer.id, channel: mine.id), limit: 1)
            await #expect(throws: TrackingError.self) { _ = try await store.insertAlert(Self.alert(world, by: world.viewer.id, channel: mine.id), limit: 1) }
            #expect(try store.alerts(groupID: world.group, userID: world.viewer.id).map(\.id) == [alert.id])
            #expect(try store.alerts(groupID: world.group, userID: world.owner.id).isEmpty)
            // Leaving the group ends the alert.
            try await store.writeDirectory { tx in try tx.deleteMembership(groupID: world.group, userID: world.viewer.id) }
            #expect(try store.alerts(groupID: world.group, userID: world.viewer.id).isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func theMatcherDeliversEachEventOnceAndTheQueueLeasesInOrder(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let hook = Self.channel(world.viewer.id)
            try await store.insertChannel(hook, limit: 10)
            _ = try await store.insertAlert(Self.alert(world, by: world.viewer.id, channel: hook.id), limit: 10)
            #expect(try store.groupsBehind(consumer: "notify").isEmpty)
            _ = try await Self.placeEvents(store, world)
            #expect(try store.groupsBehind(consumer: "notify") == [world.group])
            // Read two events a time: the cursor moves past each batch, and a second matcher finds nothing.
            var more = try store.matchAlerts(groupID: world.group, consumer: "notify", limit: 2) { AlertMatcher.deliveries($0) { $0.deliveryID.rawValue } }
            while more { more = try store.matchAlerts(groupID: world.group, consumer: "notify", limit: 2) { AlertMatcher.deliveries($0) { $0.deliveryID.rawValue } } }
            #expect(try !store.matchAlerts(groupID: world.group, consumer: "notify", limit: 100) { AlertMatcher.deliveries($0) { $0.deliveryID.rawValue } })
            #expect(try store.groupsBehind(consumer: "notify").isEmpty)
            let log = try store.deliveries(channelID: hook.id, limit: 10)
            #expect(log.map(\.eventType) == ["place.enter", "place.exit"])
            // One channel at a time, oldest first: the exit is leased, the enter waits for it.
            let now = Timestamp.nowMilliseconds() + 1
            let leased = try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10)
            #expect(leased.map(\.delivery.eventType) == ["place.exit"])
            #expect(leased.first?.channel.secret == hook.secret)
            #expect(try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10).isEmpty)
            // A lease that ran out makes it due again (a dead node's delivery is taken over).
            #expect(try store.leaseDeliveries(now: now + 60_000, leaseMilliseconds: 60_000, limit: 10).map(\.delivery.id) == leased.map(\.delivery.id))
            let exit = try #require(leased.first?.delivery)
            try store.recordAttempt(DeliveryAttempt(deliveryID: exit.id, channelID: hook.id, outcome: .retry(at: now + 5_000), at: now,
                                                          httpStatus: 503, error: "busy", disableChannel: nil))
            #expect(try store.channel(id: hook.id)?.failingSince == now)
            #expect(try store.nextDueTime() == now + 5_000)
            #expect(try store.leaseDeliveries(now: now + 1, leaseMilliseconds: 60_000, limit: 10).isEmpty)
            try store.recordAttempt(DeliveryAttempt(deliveryID: exit.id, channelID: hook.id, outcome: .delivered, at: now + 5_000,
                                                          httpStatus: 200, error: nil, disableChannel: nil))
            #expect(try store.channel(id: hook.id)?.failingSince == nil)
            let next = try store.leaseDeliveries(now: now + 5_000, leaseMilliseconds: 60_000, limit: 10)
            #expect(next.map(\.delivery.eventType) == ["place.enter"])
            let record = try store.deliveries(channelID: hook.id, limit: 10).last
            #expect(record?.status == .delivered && record?.attempts == 2 && record?.httpStatus == 200)
            // Disabling the channel fails what is pending.
            try store.recordAttempt(DeliveryAttempt(deliveryID: next[0].delivery.id, channelID: hook.id, outcome: .failed, at: now + 6_000,
                                                          httpStatus: 410, error: "gone", disableChannel: "the receiver answered 410 Gone"))
            let disabled = try #require(try store.channel(id: hook.id))
            #expect(!disabled.enabled && disabled.disabledReason == "the receiver answered 410 Gone")
            #expect(try store.deliveries(channelID: hook.id, limit: 10).allSatisfy { $0.status != .pending })
        }
    }

    /// A sender may lease a channel's backlog together: the oldest pending delivery and the next
    /// ones while due, in event order, under one lease; what it did not attempt it releases, and
    /// the order holds whatever happened to the first.
    @Test(arguments: StoreFactory.all)
    func aChannelsBacklogIsLeasedTogetherInOrderAndReleased(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let (hook, order) = try await Self.channelWithTwoDeliveries(store)
            let now = Timestamp.nowMilliseconds() + 1
            let backlog = try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10, perChannel: 8)
            #expect(backlog.map(\.delivery.id) == order)
            #expect(try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10, perChannel: 8).isEmpty)
            // The first is to be retried: the second, released unsent, waits behind it.
            try store.recordAttempts([DeliveryAttempt(deliveryID: order[0], channelID: hook.id, outcome: .retry(at: now + 5_000), at: now,
                                                      httpStatus: 503, error: "busy", disableChannel: nil)], releasing: [order[1]])
            #expect(try store.leaseDeliveries(now: now + 1, leaseMilliseconds: 60_000, limit: 10, perChannel: 8).isEmpty)
            let again = try store.leaseDeliveries(now: now + 5_000, leaseMilliseconds: 60_000, limit: 10, perChannel: 8)
            #expect(again.map(\.delivery.id) == order)
            // The first delivered, the second released: it is the channel's head, due at once.
            try store.recordAttempts([DeliveryAttempt(deliveryID: order[0], channelID: hook.id, outcome: .delivered, at: now + 5_000,
                                                      httpStatus: 200, error: nil, disableChannel: nil)], releasing: [order[1]])
            let last = try store.leaseDeliveries(now: now + 5_001, leaseMilliseconds: 60_000, limit: 10, perChannel: 8)
            #expect(last.map(\.delivery.id) == [order[1]])
            #expect(last.first?.delivery.attempts == 0)
        }
    }

    /// Seventy groups matched in one call (the matcher's statements cover up to 64 groups at
    /// once, so this is two parts of one transaction):
    /// each group's deliveries quote its own device and member, in event order; a limit leaves
    /// every group behind with its cursor moved past what was read, and the next call goes on
    /// from there without matching an event twice.
    @Test(arguments: StoreFactory.all)
    func severalGroupsAreMatchedTogetherEachFromItsOwnCursor(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            var worlds: [(group: GroupID, channel: ChannelID, quote: String)] = []
            for index in 0..<70 {
                let owner = try await Fixtures.user(store, "member-\(index)")
                let device = try await Fixtures.device(store, owner: owner.id, name: "phone-\(index)")
                let group = try await Fixtures.group(store, members: [(owner.id, device.id, true)])
                let hook = Self.channel(owner.id)
                try await store.insertChannel(hook, limit: 10)
                _ = try await store.insertAlert(Alert(id: .generate(), groupID: group, userID: owner.id, channelID: hook.id, placeID: nil, deviceID: nil,
                                                      events: [.enter, .exit], sinceEvent: .start, createdAt: Fixtures.time(Fixtures.t0)), limit: 10)
                try await Fixtures.append(store, device.id, [Fixtures.fix(1_000, longitude: 2.3500, latitude: 48.8500)])
                let home = Fixtures.circle(group, by: owner.id, longitude: 2.35, latitude: 48.85, name: "home")
                let shape = try home.shape()
                try await store.writePlaces { tx in try tx.insertPlace(home, shape: shape) }
                for (time, longitude) in [(2_000, 2.3800), (3_000, 2.3501)] {
                    try await Fixtures.append(store, device.id, [Fixtures.fix(Int64(time), longitude: longitude, latitude: 48.8500)])
                }
                worlds.append((group, hook.id, "\(group.rawValue)|phone-\(index)|member-\(index)"))
            }
            let match = { (limit: Int) in
                try store.matchAlerts(groupIDs: worlds.map(\.group).reversed(), consumer: "notify", limit: limit) {
                    AlertMatcher.deliveries($0) { "\($0.groupID.rawValue)|\($0.deviceName)|\($0.displayName)|\($0.event.crossing.rawValue)" }
                }
            }
            // The first call reads up to one event id a group: the group's log is behind.
            let first = try match(1)
            #expect(first.busy.isEmpty && first.behind == Set(worlds.map(\.group)))
            #expect(Set(try store.groupsBehind(consumer: "notify")) == Set(worlds.map(\.group)))
            #expect(try match(100) == AlertMatchProgress())
            #expect(try store.groupsBehind(consumer: "notify").isEmpty)
            #expect(try match(100) == AlertMatchProgress())
            for world in worlds {
                let log = try store.deliveries(channelID: world.channel, limit: 10).reversed()
                #expect(log.map(\.payload) == ["\(world.quote)|exit", "\(world.quote)|enter"])
                #expect(log.map(\.eventID.rawValue) == log.map(\.eventID.rawValue).sorted() && log.allSatisfy { $0.groupID == world.group })
            }
        }
    }

    /// Attempts of several channels recorded together: each delivery gets its own outcome, time,
    /// HTTP status and error; a channel that delivered everything is not failing, one whose
    /// attempt is to be retried is (from that attempt), and the leases end.
    @Test(arguments: StoreFactory.all)
    func attemptsOfSeveralChannelsAreRecordedTogether(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let good = Self.channel(world.viewer.id, name: "good"), busy = Self.channel(world.viewer.id, name: "busy")
            for hook in [good, busy] {
                try await store.insertChannel(hook, limit: 10)
                _ = try await store.insertAlert(Self.alert(world, by: world.viewer.id, channel: hook.id), limit: 10)
            }
            _ = try await Self.placeEvents(store, world)
            #expect(try store.matchAlerts(groupIDs: [world.group], consumer: "notify", limit: 100) { AlertMatcher.deliveries($0) { $0.deliveryID.rawValue } }
                    == AlertMatchProgress())
            let now = Timestamp.nowMilliseconds() + 1
            let jobs = try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10, perChannel: 8)
            #expect(jobs.count == 4)
            let goodJobs = jobs.filter { $0.channel.id == good.id }, busyJobs = jobs.filter { $0.channel.id == busy.id }
            #expect(goodJobs.count == 2 && busyJobs.count == 2)
            let attempts = goodJobs.enumerated().map { index, job in
                DeliveryAttempt(deliveryID: job.delivery.id, channelID: good.id, outcome: .delivered, at: now + Int64(index),
                                httpStatus: 200 + index, error: nil, disableChannel: nil)
            } + [DeliveryAttempt(deliveryID: busyJobs[0].delivery.id, channelID: busy.id, outcome: .retry(at: now + 5_000), at: now + 7,
                                 httpStatus: 503, error: "busy", disableChannel: nil)]
            try store.recordAttempts(attempts, releasing: [busyJobs[1].delivery.id])
            let goodLog = try store.deliveries(channelID: good.id, limit: 10).reversed()
            #expect(goodLog.map(\.status) == [.delivered, .delivered])
            #expect(goodLog.map(\.lastAttemptAt) == [now, now + 1] && goodLog.map(\.httpStatus) == [200, 201])
            #expect(goodLog.allSatisfy { $0.attempts == 1 && $0.error == nil })
            let busyLog = Array(try store.deliveries(channelID: busy.id, limit: 10).reversed())
            #expect(busyLog.map(\.status) == [.pending, .pending] && busyLog.map(\.attempts) == [1, 0])
            #expect(busyLog[0].nextAttemptAt == now + 5_000 && busyLog[0].httpStatus == 503 && busyLog[0].error == "busy")
            #expect(try store.channel(id: good.id)?.failingSince == nil)
            #expect(try store.channel(id: busy.id)?.failingSince == now + 7)
            // Nothing is leased any more: the busy channel waits for its retry, the good one is done.
            #expect(try store.leaseDeliveries(now: now + 8, leaseMilliseconds: 60_000, limit: 10, perChannel: 8).isEmpty)
            #expect(try store.leaseDeliveries(now: now + 5_000, leaseMilliseconds: 60_000, limit: 10, perChannel: 8).map(\.delivery.id)
                    == busyLog.map(\.id))
        }
    }

    /// A round recorded and the next leased in one call: the channel's next delivery, its
    /// oldest now, comes back leased (no one else gets it); a retried one holds its channel back.
    @Test(arguments: StoreFactory.all)
    func aRoundIsRecordedAndTheNextLeasedTogether(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let (hook, order) = try await Self.channelWithTwoDeliveries(store)
            let now = Timestamp.nowMilliseconds() + 1
            let first = try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10, perChannel: 1)
            #expect(first.map(\.delivery.id) == [order[0]])
            // The head leased, the one behind it is no one's to lease.
            #expect(try store.leaseDeliveries(now: now, leaseMilliseconds: 60_000, limit: 10, perChannel: 1).isEmpty)
            let next = try store.recordAttempts([DeliveryAttempt(deliveryID: order[0], channelID: hook.id, outcome: .delivered, at: now,
                                                                 httpStatus: 204, error: nil, disableChannel: nil)],
                                                releasing: [], thenLeasing: 10, now: now + 1, leaseMilliseconds: 60_000, perChannel: 8)
            #expect(next.map(\.delivery.id) == [order[1]])
            #expect(try store.deliveries(channelID: hook.id, limit: 10).first { $0.id == order[0] }?.status == .delivered)
            #expect(try store.leaseDeliveries(now: now + 1, leaseMilliseconds: 60_000, limit: 10, perChannel: 8).isEmpty)
            // To be retried in 5 s: nothing to lease until then.
            let after = try store.recordAttempts([DeliveryAttempt(deliveryID: order[1], channelID: hook.id, outcome: .retry(at: now + 5_000),
                                                                  at: now + 2, httpStatus: 503, error: "busy", disableChannel: nil)],
                                                 releasing: [], thenLeasing: 10, now: now + 2, leaseMilliseconds: 60_000, perChannel: 8)
            #expect(after.isEmpty)
            #expect(try store.leaseDeliveries(now: now + 5_000, leaseMilliseconds: 60_000, limit: 10, perChannel: 8).map(\.delivery.id)
                    == [order[1]])
        }
    }
}
