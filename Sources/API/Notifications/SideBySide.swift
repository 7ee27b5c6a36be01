import Foundation
import Synchronization

/// Runs blocking work side by side and waits for all of it: the first item on the calling
/// thread, each other on a thread made for it that ends with it. For a sender's round, whose
/// channels each block on their sends (up to the client's timeout a send): a round lasts as long
/// as its slowest channel, not as long as all of them one after another.
///
/// Threads, not Swift's cooperative pool nor Dispatch's (whose threads a blocking send would
/// hold, and which on Linux adds threads for blocked ones only slowly); made per call, so
/// nothing outlives the caller. How many run at once is the caller's bound (`items.count`).
enum SideBySide {
    /// `body` of each item, in `items`' order. `name` names the threads (with the item's index).
    static func map<Item: Sendable, Output: Sendable>(_ items: [Item], name: String,
                                                      _ body: @escaping @Sendable (Item) -> Output) -> [Output] {
        guard items.count > 1 else { return items.map(body) }
        let outputs = Mutex<[Output?]>(Array(repeating: nil, count: items.count))
        let done = DispatchGroup()
        for index in items.indices.dropFirst() {
            done.enter()
            let item = items[index]
            let thread = Thread {
                defer { done.leave() }
                let output = body(item)
                outputs.withLock { $0[index] = output }
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
        let first = body(items[0])
        done.wait()
        return outputs.withLock { all in
            all[0] = first
            return all.compactMap { $0 }
        }
    }
}
