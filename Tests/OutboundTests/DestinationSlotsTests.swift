import Testing
@testable import Outbound

/// At most `limit` requests at once to one destination; other destinations are not held up.
@Suite struct DestinationSlotsTests {
    @Test func aDestinationsSlotsRunOutAndComeBackAndOthersAreNotHeldUp() {
        let slots = DestinationSlots(limit: 2)
        #expect(slots.acquire("http://a:80", waitingMilliseconds: 0))
        #expect(slots.acquire("http://a:80", waitingMilliseconds: 0))
        // Full: a third waits its time out and gets none.
        #expect(!slots.acquire("http://a:80", waitingMilliseconds: 20))
        #expect(slots.acquire("http://b:80", waitingMilliseconds: 0))
        slots.release("http://a:80")
        #expect(slots.acquire("http://a:80", waitingMilliseconds: 0))
        for destination in ["http://a:80", "http://a:80", "http://b:80"] { slots.release(destination) }
        // All given back: the slots are whole again.
        #expect(slots.acquire("http://a:80", waitingMilliseconds: 0) && slots.acquire("http://a:80", waitingMilliseconds: 0))
        slots.release("http://a:80")
        slots.release("http://a:80")
    }
}
