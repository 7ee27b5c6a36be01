import Testing
@testable import Exports

@Suite struct ScatterCSVDefuseTests {
    @Test(arguments: [("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""), ("+1", "'+1"), ("-2", "'-2"), ("@SUM(A1)", "'@SUM(A1)"),
                      ("Ann", "Ann"), ("a=b", "a=b"), ("Pixel, work", "\"Pixel, work\"")])
    func formulasAreDefusedAndQuotingStillApplies(_ pair: (String, String)) {
        var out: [UInt8] = []
        ScatterCSVExport.appendField(pair.0, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == pair.1)
    }
}
