import HTTPServer

/// One open stream of a hub — the live feed (`LiveHub`) or a share link's (`ShareFeed`) — and
/// the protocol both hubs follow for it, written once:
///
/// 1. **register**: the stream is added to its hub *collecting*, before anything is read, so no
///    commit between the read and the stream going live can be missed;
/// 2. **opening**: the hub reads its snapshot (or replay) and renders the opening bytes;
/// 3. **hand-over** (`goLive`): the opening and whatever was `collected` meanwhile that the
///    opening does not already hold are written as one, and the stream is *live*: from then on
///    the hub writes committed items to it directly (`heartbeat` keeps it open while idle).
///
/// A stream whose buffer cannot take a write is finished by its hub and dropped (the reader
/// reconnects to a fresh opening). Subclasses add what their hub needs to decide what a stream
/// may be served. Touched only under its hub's lock.
class HubStream<Item> {
    enum Phase {
        /// Registered; items committed while the opening is read wait here.
        case collecting([Item])
        case live
    }

    let stream: ResponseStream
    private(set) var phase: Phase = .collecting([])

    init(stream: ResponseStream) {
        self.stream = stream
    }

    var isLive: Bool {
        if case .live = phase { return true }
        return false
    }

    /// Keeps `items` while the opening is read. Returns false when the stream is live (the
    /// hub writes the items itself).
    func collect(_ items: some Sequence<Item>) -> Bool {
        guard case .collecting(var collected) = phase else { return false }
        phase = .live  // drops the phase's reference, so the append below does not copy
        collected.append(contentsOf: items)
        phase = .collecting(collected)
        return true
    }

    /// The hand-over: writes `bytes` — the opening and the items `collected` meanwhile that it
    /// does not hold — at once, and the stream is live. Returns false, leaving the stream as it
    /// was, when it was not collecting or the bytes did not fit (the hub finishes and drops it).
    func goLive(with bytes: [UInt8]) -> Bool {
        guard case .collecting = phase, stream.writeOpening(bytes) else { return false }
        phase = .live
        return true
    }

    /// The items collected while the opening was read (nil once live).
    var collected: [Item]? {
        if case .collecting(let items) = phase { return items }
        return nil
    }

    /// Writes an SSE comment to a live stream so proxies keep it open. Returns false when it
    /// did not fit (the hub finishes and drops it); a collecting stream writes nothing.
    func heartbeat() -> Bool {
        guard isLive else { return true }
        return stream.write(heartbeatComment)
    }
}

/// The SSE comment a heartbeat writes (made once: a generic class has no static stored property).
private let heartbeatComment = Array(": heartbeat\n\n".utf8)

extension Dictionary where Value: AnyObject {
    /// Sends every live stream among these (`HubStream`s by id) its heartbeat; finishes the
    /// streams that could not take it with `ending(stream)` and removes them.
    mutating func sendHeartbeats<Item>(ending: (Value) -> [UInt8]) where Value: HubStream<Item> {
        for (id, subscriber) in self where !subscriber.heartbeat() {
            subscriber.stream.finish(with: ending(subscriber))
            self[id] = nil
        }
    }
}
