import PostgresStore
import Testing
import Tracking

/// The payloads nodes announce commits with: what one node writes, every node reads back the
/// same; anything else is refused, never trapped on.
@Suite("PostgreSQL notices")
struct PostgresNoticeTests {
    @Test func aShareFixNoticeRoundTripsAndKeepsTheNewestFixes() throws {
        let fixes = (0..<150).map { (timestamp: Int64(1_793_491_200_000 + $0), sequence: Int64(10 + $0)) }
        let notice = ShareFixNotice(deviceID: DeviceID(rawValue: "dev_abc"), latestSequence: 159, fixes: fixes)
        #expect(notice.fixes.count == ShareFixNotice.maxFixes)
        #expect(notice.fixes.first?.sequence == 60)
        #expect(notice.payload.utf8.count < 8_000)
        #expect(ShareFixNotice(payload: notice.payload) == notice)
        let none = ShareFixNotice(deviceID: DeviceID(rawValue: "dev_abc"), latestSequence: nil, fixes: [(5, 6)])
        #expect(ShareFixNotice(payload: none.payload)?.latestSequence == nil)
        for bad in ["", "dev 1", "dev 1 ", "dev x 1:2", "dev 1 1:2:3", "dev 1 a:2", "dev -1 1:2", " 1 1:2", "dev 1 99999999999999999999:1"] {
            #expect(ShareFixNotice(payload: bad) == nil, "\(bad)")
        }
    }

    @Test func shareChangeNoticesAreReadAsTheTriggersWriteThem() {
        #expect(ShareChangeNotice(payload: "revoked shr_1") == .revoked(ShareID(rawValue: "shr_1")))
        #expect(ShareChangeNotice(payload: "renewed shr_1 1793491200000") == .renewed(ShareID(rawValue: "shr_1"), expiresAt: 1_793_491_200_000))
        for bad in ["", "revoked", "renewed shr_1", "renewed shr_1 soon", "deleted shr_1"] {
            #expect(ShareChangeNotice(payload: bad) == nil, "\(bad)")
        }
    }
}
