import Foundation
import Synchronization
import Testing
import ThreadControl

@Suite struct GroupCommitQueueTests {
    @Test func batchesLeaveInSubmissionOrderAtMostTheLimitEach() {
        var queue = GroupCommitQueue<Int>(maxJobsPerCommit: 3)
        for job in 1...7 { guard case .queued = queue.submit(job) else { Issue.record("refused \(job)"); return } }
        var batches: [[Int]] = []
        while case .commit(let batch) = queue.next() { batches.append(batch) }
        #expect(batches == [[1, 2, 3], [4, 5, 6], [7]])
        guard case .wait = queue.next() else { Issue.record("an empty open queue must wait"); return }
        #expect(!queue.isStopped)
    }

    @Test func closingRefusesNewJobsButHandsOutTheQueuedOnesBeforeStopping() {
        var queue = GroupCommitQueue<String>(maxJobsPerCommit: 10)
        _ = queue.submit("a")
        _ = queue.submit("b")
        queue.close()
        guard case .refused("c") = queue.submit("c") else { Issue.record("a closing queue must refuse"); return }
        guard case .commit(let batch) = queue.next() else { Issue.record("queued jobs must still go out"); return }
        #expect(batch == ["a", "b"])
        #expect(!queue.isStopped)
        guard case .stop = queue.next() else { Issue.record("a drained closing queue must stop"); return }
        #expect(queue.isStopped)
    }

    @Test func jobsSubmittedBetweenBatchesKeepTheirOrderAcrossCompaction() {
        var queue = GroupCommitQueue<Int>(maxJobsPerCommit: 2)
        var next = 0
        var taken: [Int] = []
        // Submit three, take two, many times: the queue's storage is compacted on the way.
        for _ in 0..<500 {
            for _ in 0..<3 { _ = queue.submit(next); next += 1 }
            if case .commit(let batch) = queue.next() { taken += batch }
        }
        while case .commit(let batch) = queue.next() { taken += batch }
        #expect(taken == Array(0..<next))
        #expect(queue.count == 0)
    }

    @Test func aLimitBelowOneMeansOne() {
        var queue = GroupCommitQueue<Int>(maxJobsPerCommit: 0)
        _ = queue.submit(1)
        _ = queue.submit(2)
        guard case .commit(let batch) = queue.next() else { Issue.record("no batch"); return }
        #expect(batch == [1])
    }
}

@Suite struct ThreadConfinedTests {
    @Test func theOwnerReadsAndWritesAndOtherThreadsMayNot() async {
        let confined = ThreadConfined(1)
        confined.value = 2  // before the claim, the builder sets it up
        let seen: (value: Int, ownerMay: Bool) = await withCheckedContinuation { continuation in
            let thread = Thread {
                confined.claim()
                confined.value += 40
                continuation.resume(returning: (confined.value, confined.isAccessible))
            }
            thread.start()
        }
        #expect(seen.value == 42)
        #expect(seen.ownerMay)
        #expect(!confined.isAccessible)
    }

    @Test func touchingTheValueOffItsThreadStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let confined = ThreadConfined(0)
            let claimed = DispatchSemaphore(value: 0)
            let thread = Thread {
                confined.claim()
                claimed.signal()
                DispatchSemaphore(value: 0).wait()  // keeps the owner alive until the process stops
            }
            thread.start()
            claimed.wait()
            _ = confined.value
        }
    }
}

@Suite struct ThreadConfinedUpdateTests {
    final class Handle {
        let released: @Sendable () -> Void
        init(released: @escaping @Sendable () -> Void) { self.released = released }
        deinit { released() }
    }

    @Test func updateChangesTheValueInPlaceSoWhatItDropsIsReleasedThere() {
        let releases = Mutex(0)
        let confined = ThreadConfined<Handle?>(Handle { releases.withLock { $0 += 1 } })
        let releasedInside = confined.update { handle -> Int in
            handle = nil
            return releases.withLock { $0 }
        }
        #expect(releasedInside == 1, "the handle must be released inside update, not at a write-back")
        #expect(confined.value == nil)
    }
}

@Suite struct GroupCommitLineTests {
    @Test func theWriterCommitsEveryJobInOrderAndCloseWaitsForItsCleanUp() async {
        let line = GroupCommitLine<Int>(maxJobsPerCommit: 4)
        let committed = Mutex<[Int]>([])
        let cleanedUp = Mutex(false)
        let largest = Mutex(0)
        let writer = Thread {
            line.runWriter(stop: { cleanedUp.withLock { $0 = true } }) { batch in
                committed.withLock { $0 += batch }
                largest.withLock { $0 = max($0, batch.count) }
            }
        }
        writer.start()
        for job in 0..<100 { #expect(line.submit(job) == nil) }
        line.closeAndWait()
        #expect(cleanedUp.withLock { $0 }, "closeAndWait returns only after the writer's clean-up")
        #expect(committed.withLock { $0 } == Array(0..<100))
        #expect(largest.withLock { $0 } <= 4)
        #expect(line.submit(100) == 100, "a closed line refuses, handing the job back")
    }
}
