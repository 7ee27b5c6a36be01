import Foundation
import StoreTestSupport
import Testing
import TestRandom
@testable import PostgresStore

/// `CommitSequencer`: whatever order the writers' threads get to it, jobs are reported in
/// ticket order, and a failed commit's ticket (done out of turn) holds nobody up.
@Suite struct CommitSequencerTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func reportsComeInTicketOrderWhateverOrderTheThreadsRunIn(seed: UInt64) {
        let sequencer = CommitSequencer()
        let tickets = (0..<40).map { _ in sequencer.take() }
        var random = SplitMix64(seed: seed)
        // Every fifth commit "failed": its ticket is done at once, without a turn.
        let failed = Set(tickets.filter { $0 % 5 == 3 })
        let reported = Recorder<UInt64>()
        let finished = DispatchGroup()
        for ticket in tickets.shuffled(using: &random) {
            finished.enter()
            Thread {
                if failed.contains(ticket) {
                    sequencer.done(ticket)
                } else {
                    sequencer.waitForTurn(ticket)
                    reported.append([ticket])
                    sequencer.done(ticket)
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        #expect(reported.all == tickets.filter { !failed.contains($0) })
        // Later tickets start where these ended: the next one's turn has come.
        let next = sequencer.take()
        sequencer.waitForTurn(next)
        sequencer.done(next)
    }
}
