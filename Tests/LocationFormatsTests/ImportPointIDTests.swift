@testable import LocationFormats
import Testing

/// The ids an import derives: written one way only, so that equal ids mean the same format,
/// time and position, and recognised exactly (a store keeps derived ids apart from ids clients
/// choose).
@Suite struct ImportPointIDTests {
    @Test func anIdNamesFormatTimeAndPositionAndIsDerivedForItsFixOnly() {
        let fix = Fix(longitude: -0.1275, latitude: 51.50722, timestamp: 1_554_105_600_000)
        let id = ImportPointID.make(for: fix, format: .gpx)
        #expect(id == "gpx:1554105600000:515072200:-1275000")
        #expect(ImportPointID.isDerived(id, for: fix))
        #expect(ImportPointID.timestamp(in: id) == 1_554_105_600_000)
        var moved = fix
        moved.longitude += 1e-6
        #expect(!ImportPointID.isDerived(id, for: moved))
        var later = fix
        later.timestamp += 1
        #expect(!ImportPointID.isDerived(id, for: later))
        // Before 1970 and on the equator and the meridian.
        let origin = Fix(longitude: 0, latitude: 0, timestamp: -5)
        #expect(ImportPointID.make(for: origin, format: .csv) == "csv:-5:0:0")
        #expect(ImportPointID.isDerived("csv:-5:0:0", for: origin))
    }

    @Test func everyFormatsTagIsRecognised() {
        let fix = Fix(longitude: 11.5, latitude: 48.1, timestamp: 1_000)
        for format in ImportFormat.allCases {
            #expect(ImportPointID.isDerived(ImportPointID.make(for: fix, format: format), for: fix), "\(format)")
        }
    }

    @Test(arguments: [
        "", "gr", "gr:", "gr:1:2", "gr:1:2:3:4", "xx:1:2:3", "GR:1:2:3", "gr:01:2:3", "gr:1:-0:3", "gr:+1:2:3",
        "gr:1:2:3 ", "gr:1::3", "gr:1:2:", "gr:99999999999999999999:2:3", "gr:-9223372036854775808:2:3", "gr:1:2:3a",
    ])
    func anythingElseIsNotOfTheShape(_ id: String) {
        #expect(ImportPointID.timestamp(in: id) == nil)
        #expect(!ImportPointID.isDerived(id, for: Fix(longitude: 3e-7, latitude: 2e-7, timestamp: 1)))
    }

    @Test func anIdOfTheShapeChosenForAnotherFixIsNotDerived() {
        #expect(ImportPointID.timestamp(in: "gr:1:2:3") == 1)
        #expect(ImportPointID.isDerived("gr:1:2:3", for: Fix(longitude: 3e-7, latitude: 2e-7, timestamp: 1)))
        #expect(!ImportPointID.isDerived("gr:1:2:3", for: Fix(longitude: 3e-7, latitude: 2e-7, timestamp: 2)))
        // Out-of-range coordinates (never validated into a fix) are not derived, and do not trap.
        #expect(!ImportPointID.isDerived("gr:1:2:3", for: Fix(longitude: .infinity, latitude: 2e-7, timestamp: 1)))
        #expect(!ImportPointID.isDerived("gr:1:2:3", for: Fix(longitude: 1e300, latitude: .nan, timestamp: 1)))
    }
}
