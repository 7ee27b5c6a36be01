import HTTPServer
import Synchronization
import Testing
@testable import API

/// The OwnTracks reply waits for both the commit and the friends read, in either order; a failed
/// commit is the answer whatever the read gave (2xx means stored).
@Suite struct AnswerAfterCommitTests {
    struct CommitFailed: Error {}
    struct ReadFailed: Error {}

    /// Feeds `answer` and `commit` in the given order; returns what the reply got (nil: nothing yet
    /// after the first of them, which must be the case).
    static func outcome(answerFirst: Bool, answer: Result<Response, Error>, commit: Result<Int, Error>) -> Result<Response, Error>? {
        let got = Mutex<[Result<Response, Error>]>([])
        let joined = AnswerAfterCommit(Reply { result in got.withLock { $0.append(result) } })
        if answerFirst { joined.answer(answer) } else { joined.committed(commit) }
        #expect(got.withLock { $0.isEmpty })
        if answerFirst { joined.committed(commit) } else { joined.answer(answer) }
        let all = got.withLock { $0 }
        #expect(all.count == 1)
        return all.first
    }

    static let friends = Response(status: 200, contentType: "application/json", bytes: Array("[]".utf8))

    @Test(arguments: [true, false])
    func theAnswerGoesOutOnceBothAreIn(answerFirst: Bool) throws {
        let result = Self.outcome(answerFirst: answerFirst, answer: .success(Self.friends), commit: .success(1))
        #expect(try result?.get().status == 200)
    }

    @Test(arguments: [true, false])
    func aFailedCommitIsTheAnswer(answerFirst: Bool) {
        let result = Self.outcome(answerFirst: answerFirst, answer: .success(Self.friends), commit: .failure(CommitFailed()))
        #expect(throws: CommitFailed.self) { try result?.get() }
        let both = Self.outcome(answerFirst: answerFirst, answer: .failure(ReadFailed()), commit: .failure(CommitFailed()))
        #expect(throws: CommitFailed.self) { try both?.get() }
    }

    @Test func aFailedReadAfterACommitIsTheAnswer() {
        let result = Self.outcome(answerFirst: false, answer: .failure(ReadFailed()), commit: .success(1))
        #expect(throws: ReadFailed.self) { try result?.get() }
    }
}
