import Testing
import Timestamps

@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (946_684_800_000, "2000-01-01T00:00:00.000Z"),
        (1_700_000_000_250, "2023-11-14T22:13:20.250Z"),
        (951_825_600_000, "2000-02-29T12:00:00.000Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func formatsAndParsesBack(milliseconds: Int64, text: String) {
        #expect(Timestamp.rfc3339(millisecondsSince1970: milliseconds) == text)
        #expect(Timestamp.parseRFC3339(text) == milliseconds)
    }

    /// Four-digit years are composed two digits at a time: every field of random times in
    /// years 0000–9999 reads back (the parser is independent of the writer), and the text has
    /// the fixed 24-byte shape.
    @Test func fourDigitYearTimesRoundTrip() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<50_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let ms = -62_167_219_200_000 + Int64(state % 315_569_520_000_000)
            let text = Timestamp.rfc3339(millisecondsSince1970: ms)
            #expect(text.utf8.count == 24 && Timestamp.parseRFC3339(text) == ms, "\(ms) → \(text)")
        }
    }

    /// Found by `Fuzz/Timestamps.swift`: `Int64.min + 50` trapped (an overflow while flooring to
    /// whole seconds). Every millisecond count formats; years beyond 0000–9999 are expanded.
    @Test func formatsEveryInt64WithoutTrapping() {
        #expect(Timestamp.rfc3339(millisecondsSince1970: Int64.min + 50) == "-292275055-05-16T16:47:04.242Z")
        #expect(Timestamp.rfc3339(millisecondsSince1970: Int64.min) == "-292275055-05-16T16:47:04.192Z")
        #expect(Timestamp.rfc3339(millisecondsSince1970: Int64.max) == "292278994-08-17T07:12:55.807Z")
        #expect(Timestamp.rfc3339(millisecondsSince1970: -62_167_219_200_001) == "-0001-12-31T23:59:59.999Z")
    }

    @Test(arguments: [
        ("2023-11-14T22:13:20Z", Int64(1_700_000_000_000)),
        ("2023-11-14t22:13:20.25z", 1_700_000_000_250),
        ("2023-11-14 23:13:20+01:00", 1_700_000_000_000),
        ("2023-11-14T15:13:20.123456-0700", 1_700_000_000_123),
        ("2016-12-31T23:59:60Z", 1_483_228_799_000),
    ])
    func parsesZonesAndFractions(text: String, milliseconds: Int64) {
        #expect(Timestamp.parseRFC3339(text) == milliseconds)
    }

    @Test(arguments: ["2023-02-29T00:00:00Z", "2023-13-01T00:00:00Z", "2023-11-14T24:00:00Z", "2023-11-14T22:13:20",
                      "2023-11-14T22:13:20+24:00", "2023-11-14T22:13:20.Z", "+2023-11-14T22:13:20Z", ""])
    func rejects(text: String) {
        #expect(Timestamp.parseRFC3339(text) == nil)
    }

    @Test func zonelessTimesAreUTCOnlyWhenAsked() {
        #expect(Timestamp.parseRFC3339("2023-11-14 22:13:20", assumeUTC: true) == 1_700_000_000_000)
        #expect(Timestamp.parseRFC3339("2023-11-14 22:13:20") == nil)
    }
}
