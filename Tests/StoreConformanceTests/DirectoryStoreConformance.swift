import Synchronization
import StoreTestSupport
import Testing
import Tracking

/// `DirectoryStore`: devices, groups, memberships, invitations, in atomic transactions.
@Suite("Store conformance: directory")
struct DirectoryStoreConformance {
    struct Abort: Error {}

    @Test(arguments: StoreFactory.all)
    func aTransactionThatThrowsKeepsNothing(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let device = Device(id: .generate(), ownerID: ann.id, name: "phone", platformID: "p1", createdAt: Fixtures.time(Fixtures.t0))
            let group = GroupRecord(id: .generate(), name: "g", ownerID: ann.id, createdAt: Fixtures.time(Fixtures.t0))
            await #expect(throws: Abort.self) {
                try await store.writeDirectory { tx in
                    try tx.insertDevice(device, tokenHash: "h")
                    try tx.insertGroup(group)
                    _ = try tx.appendMembershipEvent(groupID: group.id, MembershipEvent(.joined(sharing: true), userID: ann.id))
                    throw Abort()
                }
            }
            #expect(try store.readDirectory { try $0.device(id: device.id) } == nil)
            #expect(try store.readDirectory { try $0.group(id: group.id) } == nil)
            #expect(try store.eventBounds(groupID: group.id).last == .start)
            // The next transaction works and its event is the group's first.
            let event = try await store.writeDirectory { tx in
                try tx.insertDevice(device, tokenHash: "h")
                try tx.insertGroup(group)
                return try tx.appendMembershipEvent(groupID: group.id, MembershipEvent(.joined(sharing: true), userID: ann.id))
            }
            #expect(event.id == EventID(1))
            #expect(try store.readDirectory { try $0.device(id: device.id) } == device)
            #expect(try store.readDirectory { try $0.deviceCredential(tokenHash: "h") }.map { [$0.0.rawValue, $0.1.rawValue] }
                    == [device.id.rawValue, ann.id.rawValue])
        }
    }

    @Test(arguments: StoreFactory.all)
    func onCommitCallbacksRunInCommitOrder(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let group = GroupRecord(id: .generate(), name: "g", ownerID: ann.id, createdAt: Fixtures.time(Fixtures.t0))
            try await store.writeDirectory { tx in try tx.insertGroup(group) }
            let seen = Recorder<EventID>()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<20 {
                    tasks.addTask {
                        try await store.writeDirectory({ tx in
                            try tx.appendMembershipEvent(groupID: group.id, MembershipEvent(.sharing(true), userID: ann.id)).id
                        }, onCommit: { id in seen.append([id]) })
                    }
                }
                try await tasks.waitForAll()
            }
            // Commit order is id order: the callbacks saw 1, 2, …, 20.
            #expect(seen.all == (1...20).map { EventID(Int64($0)) })
        }
    }

    @Test(arguments: StoreFactory.all)
    func devicesAreListedInCreationOrderAndRenamedAndRekeyed(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let ann = try await Fixtures.user(store, "ann")
            let first = try await Fixtures.device(store, owner: ann.id, name: "one")
            let second = try await Fixtures.device(store, owner: ann.id, name: "two", createdAt: Fixtures.t0 + 1)
            try await store.writeDirectory { tx in
                try tx.renameDevice(id: first.id, name: "renamed")
                try tx.replaceDeviceToken(id: second.id, tokenHash: "new-hash")
            }
            let devices = try store.readDirectory { try $0.devices(ownerID: ann.id) }
            #expect(devices.map(\.name) == ["renamed", "two"])
            #expect(try store.readDirectory { try $0.deviceCredential(tokenHash: "new-hash") }?.0 == second.id)
            #expect(try store.readDirectory { try $0.deviceCredential(tokenHash: "device-token-\(second.id.rawValue)") } == nil)
            // The port's own lookup (no snapshot) agrees with the transaction's, after the rotation too.
            #expect(try store.deviceCredential(tokenHash: "new-hash").map { [$0.0.rawValue, $0.1.rawValue] } == [second.id.rawValue, ann.id.rawValue])
            #expect(try store.deviceCredential(tokenHash: "device-token-\(second.id.rawValue)") == nil)
            #expect(try store.deviceOwner(deviceID: first.id) == ann.id)
            #expect(try store.deviceOwner(deviceID: .generate()) == nil)
        }
    }

    @Test(arguments: StoreFactory.all)
    func membersAreListedInJoinOrderWithLocationsOnlyWhenSharing(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000)])
            try await Fixtures.append(store, world.viewerDevice.id, [Fixtures.fix(1_000)])
            let members = try store.readDirectory { try $0.members(groupID: world.group) }
            #expect(members.map(\.userID) == [world.owner.id, world.viewer.id])
            #expect(members.map(\.shareLocation) == [true, false])
            #expect(members[0].location == LastLocation(longitude: 2.35, latitude: 48.85, timestamp: Fixtures.time(Fixtures.t0 + 1_000)))
            #expect(members[1].location == nil)
            #expect(try store.isMember(userID: world.viewer.id, groupID: world.group))
            #expect(try !store.isMember(userID: .generate(), groupID: world.group))
            let summaries = try store.readDirectory { try $0.membershipSummaries(userID: world.viewer.id) }
            #expect(summaries == [MembershipSummary(groupID: world.group, groupName: "family", deviceID: world.viewerDevice.id,
                                                    isOwner: false, shareLocation: false)])
        }
    }

    @Test(arguments: StoreFactory.all)
    func sharingDecidesWhoReadsADeviceAndInWhichWindows(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let stranger = try await Fixtures.user(store, "eve")
            #expect(try store.isSharedWith(deviceID: world.device.id, viewerID: world.viewer.id))
            #expect(try !store.isSharedWith(deviceID: world.device.id, viewerID: stranger.id))
            #expect(try !store.isSharedWith(deviceID: world.viewerDevice.id, viewerID: world.owner.id))
            #expect(try store.sharedHistoryWindows(deviceID: world.device.id, viewerID: world.viewer.id)
                    == HistoryWindows([Fixtures.t0...Int64.max]))
            // Sharing off at t0+500, on again at t0+900: two windows; off now: not shared at all.
            try await store.writeDirectory { tx in
                try tx.setSharing(groupID: world.group, userID: world.owner.id, share: false)
                try tx.closeSharingPeriod(groupID: world.group, userID: world.owner.id, at: Fixtures.t0 + 500)
                try tx.setSharing(groupID: world.group, userID: world.owner.id, share: true)
                try tx.openSharingPeriod(groupID: world.group, userID: world.owner.id, deviceID: world.device.id, at: Fixtures.t0 + 900)
            }
            #expect(try store.sharedHistoryWindows(deviceID: world.device.id, viewerID: world.viewer.id)
                    == HistoryWindows([Fixtures.t0...(Fixtures.t0 + 500), (Fixtures.t0 + 900)...Int64.max]))
            try await store.writeDirectory { tx in
                try tx.setSharing(groupID: world.group, userID: world.owner.id, share: false)
                try tx.closeSharingPeriod(groupID: world.group, userID: world.owner.id, at: Fixtures.t0 + 1_500)
            }
            #expect(try !store.isSharedWith(deviceID: world.device.id, viewerID: world.viewer.id))
            #expect(try store.sharedHistoryWindows(deviceID: world.device.id, viewerID: world.viewer.id).isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all)
    func invitationsAreListedAndDeleted(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let carol = try await Fixtures.user(store, "carol")
            try await store.writeDirectory { tx in
                try tx.insertInvitation(groupID: world.group, inviteeID: carol.id, senderID: world.owner.id, at: Fixtures.t0)
            }
            #expect(try store.readDirectory { try $0.hasInvitation(groupID: world.group, inviteeID: carol.id) })
            #expect(try store.readDirectory { try $0.invitationSummaries(inviteeID: carol.id) }
                    == [InvitationSummary(groupID: world.group, groupName: "family", senderEmail: world.owner.email)])
            try await store.writeDirectory { tx in try tx.deleteInvitation(groupID: world.group, inviteeID: carol.id) }
            #expect(try !store.readDirectory { try $0.hasInvitation(groupID: world.group, inviteeID: carol.id) })
        }
    }

    @Test(arguments: StoreFactory.all)
    func deletingAUserTakesEverythingOfTheirsAndRedactsTheirEvents(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            let carol = try await Fixtures.user(store, "carol")
            try await store.writeDirectory { tx in
                try tx.insertInvitation(groupID: world.group, inviteeID: carol.id, senderID: world.owner.id, at: Fixtures.t0)
            }
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000), Fixtures.fix(2_000)])
            #expect(try Fixtures.events(store, world.group).map(\.kind) == [.location, .location])
            // The viewer's own group survives the owner's deletion in the store: the service
            // hands groups over first. Here the owner's group goes with them.
            try await store.writeDirectory { tx in try tx.deleteUser(id: world.owner.id) }
            #expect(try store.user(id: world.owner.id) == nil)
            #expect(try store.sessions(userID: world.owner.id).isEmpty)
            #expect(try store.readDirectory { try $0.device(id: world.device.id) } == nil)
            #expect(try store.readDirectory { try $0.group(id: world.group) } == nil)
            #expect(try store.readDirectory { try $0.memberships(userID: world.viewer.id) }.isEmpty)
            #expect(try store.readDirectory { try $0.invitationSummaries(inviteeID: carol.id) }.isEmpty)
            #expect(try store.exportSubject(deviceID: world.device.id) == nil)
            // The log keeps its ids but serves no position of a deleted fix.
            let events = try Fixtures.events(store, world.group)
            #expect(events.map(\.id) == [EventID(1), EventID(2)])
            #expect(events.allSatisfy { $0.kind == .redacted })
        }
    }

    @Test(arguments: StoreFactory.all)
    func deletingADeviceTakesItsFixesAndMemberships(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await Fixtures.append(store, world.device.id, [Fixtures.fix(1_000)])
            try await store.writeDirectory { tx in try tx.deleteDevice(id: world.device.id) }
            #expect(try store.readDirectory { try $0.memberships(deviceID: world.device.id) }.isEmpty)
            #expect(try store.readDirectory { try $0.membership(groupID: world.group, userID: world.owner.id) } == nil)
            #expect(try store.sharedDevices(groupID: world.group).isEmpty)
            let everywhere = CellRange.world
            let entries = try store.withReader { reader in try Scan.all(reader, everywhere) }
            #expect(entries.isEmpty)
            #expect(try Fixtures.events(store, world.group).map(\.kind) == [.redacted])
            await #expect(throws: TrackingError.self) {
                try await Fixtures.append(store, world.device.id, [Fixtures.fix(2_000)])
            }
        }
    }

    /// A renamed group has its new name in its record and in every member's list of groups.
    @Test(arguments: StoreFactory.all)
    func groupsAreRenamed(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await store.writeDirectory { tx in try tx.setGroupName(groupID: world.group, name: "Family \u{1F3E1}") }
            #expect(try store.readDirectory { try $0.group(id: world.group) }?.name == "Family \u{1F3E1}")
            for member in [world.owner.id, world.viewer.id] {
                #expect(try store.readDirectory { try $0.membershipSummaries(userID: member) }.map(\.groupName) == ["Family \u{1F3E1}"])
            }
        }
    }

    @Test(arguments: StoreFactory.all)
    func groupsChangeOwnerAndAreDeletedWithTheirMemberships(_ factory: StoreFactory) async throws {
        try await factory.withStore { store in
            let world = try await SharingWorld.make(store)
            try await store.writeDirectory { tx in try tx.setGroupOwner(groupID: world.group, ownerID: world.viewer.id) }
            #expect(try store.readDirectory { try $0.group(id: world.group) }?.ownerID == world.viewer.id)
            #expect(try store.readDirectory { try $0.ownedGroupIDs(userID: world.viewer.id) } == [world.group])
            #expect(try store.readDirectory { try $0.membershipSummaries(userID: world.viewer.id) }.map(\.isOwner) == [true])
            try await store.writeDirectory { tx in try tx.deleteMembership(groupID: world.group, userID: world.owner.id) }
            #expect(try store.readDirectory { try $0.members(groupID: world.group) }.map(\.userID) == [world.viewer.id])
            #expect(try !store.isSharedWith(deviceID: world.device.id, viewerID: world.viewer.id))
            try await store.writeDirectory { tx in try tx.deleteGroup(id: world.group) }
            #expect(try store.readDirectory { try $0.memberships(userID: world.viewer.id) }.isEmpty)
            #expect(try store.feedSnapshot(groupID: world.group, readerID: world.viewer.id) == nil)
        }
    }
}
