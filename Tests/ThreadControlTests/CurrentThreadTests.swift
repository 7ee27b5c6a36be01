import Foundation
import Testing
import ThreadControl

/// What `/proc/thread-self` says about the calling thread.
private func procThreadSelf(_ file: String) -> String? {
    try? String(contentsOfFile: "/proc/thread-self/" + file, encoding: .utf8)
}

@Suite struct CurrentThreadTests {
    @Test func namingAThreadShowsInProcAndIsCutAt15Bytes() async {
        let names: [String?] = await withCheckedContinuation { continuation in
            let thread = Thread {
                CurrentThread.name("fod-test")
                let short = procThreadSelf("comm")
                CurrentThread.name("fod-a-much-longer-name")
                continuation.resume(returning: [short, procThreadSelf("comm")])
            }
            thread.start()
        }
        #expect(names == ["fod-test\n", "fod-a-much-long\n"])
    }

    @Test func requestThreadsGetShortSlicesWhereTheKernelOffersThem() async {
        let outcome: (accepted: Bool, sched: String?) = await withCheckedContinuation { continuation in
            let thread = Thread {
                let accepted = CurrentThread.schedule(as: .requests)
                continuation.resume(returning: (accepted, procThreadSelf("sched")))
            }
            thread.start()
        }
        // Kernels before 6.12 refuse a slice; those that accept it report it as se.slice.
        let slice = outcome.sched?.split(separator: "\n").first { $0.hasPrefix("se.slice") }
            .flatMap { $0.split(separator: ":").last }.map { $0.trimmingCharacters(in: .whitespaces) }
        if outcome.accepted, let slice {
            #expect(slice == "100000")
        } else {
            #expect(!outcome.accepted || slice == nil)
        }
    }
}
