import Testing
import Timestamps

@Suite struct TimestampValueTests {
    @Test func formatsParsesAndComparesLikeItsMilliseconds() throws {
        let time = Timestamp(millisecondsSince1970: 1_700_000_000_250)
        #expect(time.rfc3339 == "2023-11-14T22:13:20.250Z" && "\(time)" == time.rfc3339)
        #expect(Timestamp(rfc3339: "2023-11-14T23:13:20.250+01:00") == time)
        #expect(Timestamp(rfc3339: "2023-11-14 22:13:20.250", assumeUTC: true) == time)
        #expect(Timestamp(rfc3339: "2023-11-14 22:13:20.250") == nil)
        #expect(Timestamp(rfc3339: "2023-02-30T00:00:00Z") == nil)
        var bytes = Array("at ".utf8)
        time.append(rfc3339To: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "at 2023-11-14T22:13:20.250Z")
        #expect(Timestamp.epoch < time && time < Timestamp(millisecondsSince1970: 1_700_000_000_251))
        #expect(Timestamp.epoch.rfc3339 == "1970-01-01T00:00:00.000Z")
    }

    @Test func nowIsTheWallClock() {
        let before = Timestamp.nowMilliseconds()
        let now = Timestamp.now
        #expect(now.millisecondsSince1970 >= before && now.millisecondsSince1970 <= Timestamp.nowMilliseconds())
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let time = Timestamp(millisecondsSince1970: 1_000)
        #expect(time.adding(milliseconds: 500).millisecondsSince1970 == 1_500)
        #expect(time.adding(milliseconds: -2_000).millisecondsSince1970 == -1_000)
        #expect((time + .seconds(2)).millisecondsSince1970 == 3_000)
        #expect((time - .milliseconds(1_500)).millisecondsSince1970 == -500)
        #expect((time + .microseconds(1_999)).millisecondsSince1970 == 1_001)
        let last = Timestamp(millisecondsSince1970: .max), first = Timestamp(millisecondsSince1970: .min)
        #expect(last.adding(milliseconds: 1) == last && first.adding(milliseconds: -1) == first)
        #expect(last + .seconds(Int64.max) == last && first - .seconds(Int64.max) == first)
        #expect(first - .seconds(Int64.min) == last && Timestamp(millisecondsSince1970: -5) - .seconds(Int64.min) == last)
        #expect(last - .seconds(Int64.max) == first && first + .seconds(Int64.max) == last)
        #expect(time.milliseconds(since: Timestamp.epoch) == 1_000 && Timestamp.epoch.milliseconds(since: time) == -1_000)
        #expect(last.milliseconds(since: first) == .max && first.milliseconds(since: last) == .min)
        #expect(Timestamp.milliseconds(of: .seconds(Int64.max)) == .max && Timestamp.milliseconds(of: .seconds(Int64.min)) == .min)
    }
}
