import HTTPServer
import JSONCore
import Tracking

extension LiveHub {
    /// Opens a stream for member `userID` on `groupID`: a snapshot (or, with `lastEventID`
    /// still in the log, exactly the missed events), then live events.
    ///
    /// The membership check, the group's visibility and the log position come from one
    /// snapshot read *after* the stream was registered, so no change between the check and the
    /// registration can be missed. Blocks only on database reads (call it off the HTTP threads).
    /// - Parameter snapshot: the group document as JSON (read after the log position).
    /// - Throws: 404 when `userID` is not a member, 429 past `streamsPerUser`.
    public func subscribe(groupID: GroupID, userID: UserID, lastEventID: EventID?,
                          snapshot: @escaping () throws -> JSONValue) throws -> ResponseStream {
        let id = nextSubscriberID.wrappingAdd(1, ordering: .relaxed).newValue
        try reserveStream(for: userID, id: id)
        let stream = ResponseStream(capacity: configuration.streamCapacity)
        groups.withLock { all in
            let channel = all[groupID] ?? GroupChannel()
            channel.subscribers[id] = Subscriber(userID: userID, stream: stream, lastSent: .start)
            all[groupID] = channel
        }
        stream.onClose { [weak self] in self?.unsubscribe(groupID: groupID, id: id, userID: userID) }
        do {
            afterRegistrationHook.withLock { hook in defer { hook = nil }; return hook }?()
            guard let state = try log.feedSnapshot(groupID: groupID, readerID: userID) else { throw TrackingError.notFound("group") }
            groups.withLock { $0[groupID]?.start(from: state) }
            afterSnapshotHook.withLock { hook in defer { hook = nil }; return hook }?()
            let opening = try openingBytes(groupID: groupID, readerID: userID, lastEventID: lastEventID, state: state, snapshot: snapshot)
            handOver(groupID: groupID, id: id, opening: opening)
        } catch {
            stream.finish()
            unsubscribe(groupID: groupID, id: id, userID: userID)
            throw error
        }
        return stream
    }

    /// What a new stream starts with: the missed events when `lastEventID` is still in the log
    /// (up to the reader's own departure, which ends the stream), else a snapshot.
    private func openingBytes(groupID: GroupID, readerID: UserID, lastEventID: EventID?, state: FeedSnapshot,
                              snapshot: () throws -> JSONValue) throws -> Opening {
        let header = Array("retry: 2000\n\n".utf8)
        let oldest = state.oldestEventID ?? EventID(state.lastEventID.rawValue &+ 1)
        guard let lastEventID, lastEventID <= state.lastEventID, lastEventID.rawValue >= oldest.rawValue - 1 else {
            return Opening(bytes: header + SSE.snapshot(try snapshot(), id: state.lastEventID), lastID: state.lastEventID, ends: false)
        }
        var opening = Opening(bytes: header, lastID: lastEventID, ends: false)
        while true {
            // Too far behind to replay within the stream's buffer: a snapshot instead.
            if opening.bytes.count > configuration.streamCapacity / 2 {
                guard let fresh = try log.feedSnapshot(groupID: groupID, readerID: readerID) else { throw TrackingError.notFound("group") }
                return Opening(bytes: header + SSE.snapshot(try snapshot(), id: fresh.lastEventID), lastID: fresh.lastEventID, ends: false)
            }
            let page = try log.events(groupID: groupID, after: opening.lastID, limit: configuration.replayPageSize)
            guard let last = page.last else { return opening }
            // Judged by the store's snapshot (sharing periods by fix time) and by the channel's
            // state, which may have followed later changes (a switch-off hides at once).
            let live = groups.withLock { $0[groupID]?.visibility } ?? state.visibility
            for event in page {
                opening.lastID = event.id
                if state.visibility.serves(event, alsoUnder: live) { opening.bytes += SSE.event(event) }
                if GroupVisibility.ends(streamOf: readerID, with: event) {
                    opening.ends = true
                    return opening
                }
            }
            opening.lastID = last.id
        }
    }

    /// Writes the opening and the live events collected meanwhile, then makes the stream live
    /// (or ends it when the reader left on the way).
    private func handOver(groupID: GroupID, id: Int, opening: Opening) {
        groups.withLock { all in
            guard let channel = all[groupID], let subscriber = channel.subscribers[id], let collected = subscriber.collected else { return }
            var bytes = opening.bytes
            var last = opening.lastID
            var ended = opening.ends
            let visibility = channel.visibility ?? .empty
            // The events collected meanwhile that the opening does not hold, up to the reader's
            // own departure.
            for event in collected where !ended && event.id > last {
                if visibility.serves(event) { bytes += SSE.event(event) }
                last = event.id
                ended = GroupVisibility.ends(streamOf: subscriber.userID, with: event)
            }
            if ended {
                subscriber.stream.finish(with: bytes)
                channel.subscribers[id] = nil
            } else if subscriber.goLive(with: bytes) {
                subscriber.lastSent = last
            } else {
                subscriber.stream.finish(with: SSE.resync(lastEventID: opening.lastID))
                channel.subscribers[id] = nil
            }
            if channel.subscribers.isEmpty { all[groupID] = nil }
        }
    }

    /// Counts stream `id` against `userID`'s limit (429 past it).
    private func reserveStream(for userID: UserID, id: Int) throws {
        let limit = configuration.streamsPerUser
        let admitted = streamsByUser.withLock { open -> Bool in
            guard open[userID, default: []].count < limit else { return false }
            open[userID, default: []].insert(id)
            return true
        }
        guard admitted else {
            throw TrackingError(.rateLimited, code: .tooManyStreams,
                                message: "at most \(limit) live streams per user are open at once; close one first", retryAfterSeconds: 5)
        }
    }

    /// Removes stream `id` from its channel and from its user's count (idempotent).
    func unsubscribe(groupID: GroupID, id: Int, userID: UserID) {
        groups.withLock { all in
            guard let channel = all[groupID] else { return }
            channel.subscribers[id] = nil
            if channel.subscribers.isEmpty { all[groupID] = nil }
        }
        streamsByUser.withLock { open in
            open[userID]?.remove(id)
            if open[userID]?.isEmpty == true { open[userID] = nil }
        }
    }
}

/// The first bytes of a stream and the log id they end at.
struct Opening {
    var bytes: [UInt8]
    var lastID: EventID
    /// The reader's own departure was among the replayed events: the stream ends after them.
    var ends: Bool
}
