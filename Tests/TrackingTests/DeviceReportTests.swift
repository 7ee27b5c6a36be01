import ErrorCodes
import LocationFormats
import Testing
import Timestamps
import Tracking

/// What a request's report changes in the device's status, and how its rejections are grouped.
@Suite struct DeviceReportTests {
    static let minute = DeviceStatus.seenResolutionMilliseconds

    @Test func lastSeenMovesOnceAMinuteHasPassed() {
        let seen = DeviceStatus(lastSeenAt: 1_000)
        #expect(DeviceStatus().updated(by: DeviceReport(seenAt: 500)) == DeviceStatus(lastSeenAt: 500))
        #expect(seen.updated(by: DeviceReport(seenAt: 1_000 + Self.minute - 1)) == nil)
        #expect(seen.updated(by: DeviceReport(seenAt: 1_000 + Self.minute)) == DeviceStatus(lastSeenAt: 1_000 + Self.minute))
        // A clock that went back never moves it back.
        #expect(seen.updated(by: DeviceReport(seenAt: 1_000 - Self.minute)) == nil)
    }

    @Test func theBatteryIsReplacedOnlyByALaterReadingThatSaysSomethingNew() {
        let stored = DeviceStatus(lastSeenAt: 1_000, battery: BatteryReading(percent: 80, timestamp: 900))
        func after(_ percent: Double, at time: Int64) -> DeviceStatus? {
            stored.updated(by: DeviceReport(seenAt: 1_001, battery: BatteryReading(percent: percent, timestamp: time)))
        }
        #expect(after(79, at: 950)?.battery == BatteryReading(percent: 79, timestamp: 950))
        #expect(after(79, at: 899) == nil)                       // older: a backlog
        #expect(after(80, at: 950) == nil)                       // the same level a moment later
        #expect(after(80, at: 900 + Self.minute)?.battery?.timestamp == 900 + Self.minute)
        #expect(DeviceStatus(lastSeenAt: 1_000).updated(by: DeviceReport(seenAt: 1_001, battery: BatteryReading(percent: 5, timestamp: 0)))?
            .battery?.percent == 5)
    }

    @Test func aFixesBatteryCountsWhenNewer() {
        let report = DeviceReport(seenAt: 0, battery: BatteryReading(percent: 10, timestamp: 50))
        let fixes = [Fix(longitude: 0, latitude: 0, timestamp: 60, battery: 90), Fix(longitude: 0, latitude: 0, timestamp: 70)]
        #expect(report.addingBattery(of: fixes).battery == BatteryReading(percent: 90, timestamp: 60))
        #expect(report.addingBattery(of: [Fix(longitude: 0, latitude: 0, timestamp: 40, battery: 90)]).battery?.percent == 10)
    }

    @Test func aRequestsRejectionsAreOnePerReasonWithTheFirstSample() {
        let error = { (code: ErrorCode, text: String) in UnusableMessage(error: FixError(code: code, message: "m-\(text)"), sample: text) }
        let at = Timestamp(millisecondsSince1970: 5)
        let grouped = IngestRejection.grouped([error(.timestampTooOld, "a"), error(.invalidLocation, "b"), error(.timestampTooOld, "c")],
                                              at: at, source: .overland)
        #expect(grouped == [
            IngestRejection(at: at, source: .overland, reason: .timestampTooOld, message: "m-a", sample: "a", count: 2),
            IngestRejection(at: at, source: .overland, reason: .invalidLocation, message: "m-b", sample: "b", count: 1),
        ])
        let report = DeviceReport(seenAt: 5, source: .owntracks, payload: AppPayload(
            transitions: [RegionTransition(event: .enter, region: "Home", timestamp: 3)]))
        #expect(report.events == [DeviceEvent(receivedAt: at, transition: RegionTransition(event: .enter, region: "Home", timestamp: 3))])
        #expect(IngestRejection(at: at, source: .osmand, reason: .invalidBody, message: String(repeating: "x", count: 1_000), sample: "", count: 0)
            .message.utf8.count <= IngestRejection.maxMessageBytes)
    }
}
