import PlanarGeometry
import Testing

@Suite("Planar validity reasons (GEOS)")
struct PlanarValidityTests {
    @Test("a bow-tie reports its self-intersection point")
    func bowTie() {
        let reason = PlanarValidity.reason(ofRing: [(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)])
        #expect(reason?.hasPrefix("Self-intersection") == true, "\(reason ?? "nil")")
        #expect(reason?.contains("1 1") == true, "\(reason ?? "nil")")
    }

    @Test("a valid square has no reason, closed or not")
    func validSquare() {
        #expect(PlanarValidity.reason(ofRing: [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]) == nil)
        #expect(PlanarValidity.reason(ofRing: [(0, 0), (1, 0), (1, 1), (0, 1)]) == nil)
    }

    @Test("degenerate rings are explained")
    func degenerate() {
        #expect(PlanarValidity.reason(ofRing: [(0, 0), (1, 1)])?.hasPrefix("Too few points") == true)
        #expect(PlanarValidity.reason(ofRing: [(0, 0), (1, .infinity), (1, 1), (0, 0)]) == "Invalid coordinate at position 1")
        // Four positions, but a zero-area spike: GEOS's own wording.
        let spike = PlanarValidity.reason(ofRing: [(0, 0), (1, 0), (0, 0), (0, 0)])
        #expect(spike != nil)
    }
}
