import Testing
@testable import GeoKit

/// Earth distances use MongoDB's radius, 6,378,100 m.
struct DistanceTests {
    @Test func oneDegreeOnTheEquator() {
        #expect(abs(Earth.distance(for: Angle(degrees: 1)).meters - 111_318.845) <= Tolerance.meters)
        let d = Earth.distance(from: pt(0, 0), to: pt(0, 1))
        #expect(abs(d.meters - 111_318.845) <= Tolerance.meters)
        let viaLatLng = Earth.distance(from: ll(0, 0), to: ll(0, 1))
        #expect(abs(viaLatLng.meters - 111_318.845) <= Tolerance.meters)
    }

    @Test func quarterCircle() {
        #expect(abs(Earth.distance(for: .rightAngle).meters - 10_018_696.05) <= 0.005)
        #expect(abs(Earth.distance(from: pt(0, 0), to: pt(90, 0)).meters - 10_018_696.05) <= 0.005)
        #expect(abs(Earth.distance(from: pt(0, 0), to: pt(0, 90)).meters - 10_018_696.05) <= 0.005)
        #expect(Earth.radiusMeters == 6_378_100)
    }

    @Test func conversionsRoundTrip() {
        let angle = Earth.angle(for: Distance(kilometers: 1234.5))
        #expect(abs(Earth.distance(for: angle).meters - 1_234_500) <= Tolerance.meters)
        #expect(abs(Angle(degrees: 180).radians - Double.pi) == 0)
        #expect(abs(Angle(radians: Double.pi / 4).degrees - 45) < 1e-12)
        #expect(Angle(degrees: 10) + Angle(degrees: 20) > Angle(degrees: 29.9))
    }

    @Test func chordAngles() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<1_000 {
            let a = rng.point(), b = rng.point()
            let exact = a.angle(to: b).radians
            #expect(abs(ChordAngle(between: a, b).angle.radians - exact) < 1e-7)
            let small = rng.point(near: a, distance: 1e-9)
            #expect(abs(ChordAngle(between: a, small).angle.radians - 1e-9) < 1e-15)
        }
        #expect(ChordAngle(Angle.straight) == .straight)
        #expect(ChordAngle(Angle(radians: -1)).isNegative)
        #expect(ChordAngle(Angle.rightAngle).length2 - 2 < 1e-15)
    }

    @Test func latLngNormalisation() {
        let n = LatLng(degreesLatitude: 95, longitude: 190).normalized
        #expect(abs(n.lat.degrees - 90) < 1e-12)
        #expect(abs(n.lng.degrees - -170) < 1e-12)
        #expect(!LatLng(degreesLatitude: 95, longitude: 0).isValid)
        #expect(LatLng(degreesLatitude: -90, longitude: -180).isValid)
        #expect(!LatLng(degreesLatitude: .nan, longitude: 0).isValid)
        // Non-finite input never traps.
        _ = CellID(LatLng(degreesLatitude: .nan, longitude: .infinity))
    }
}

/// The orientation predicate is exact: permutation identities hold even for nearly coplanar
/// triples, where naive floating point is unreliable.
struct PredicateTests {
    @Test func basics() {
        let x = S2Point(x: 1, y: 0, z: 0), y = S2Point(x: 0, y: 1, z: 0), z = S2Point(x: 0, y: 0, z: 1)
        #expect(Predicates.orientation(x, y, z) == .counterClockwise)
        #expect(Predicates.orientation(y, x, z) == .clockwise)
        #expect(Predicates.orientation(x, y, S2Point(x: 3, y: 5, z: 0)) == .collinear)
        #expect(Predicates.orientation(x, y, x) == .collinear)
        #expect(Predicates.orientation(x, y, -x) == .collinear)
    }

    @Test("near-degenerate triples: signs are antisymmetric and cyclic (seed 21)")
    func nearDegenerate() {
        var rng = SplitMix64(seed: 21)
        var exactPathUsed = 0
        for _ in 0..<20_000 {
            let a = rng.point(), b = rng.point()
            let t = rng.uniform(-2, 2)
            // c nearly on the great circle through a and b (rounding decides the side).
            let c = (a + b * t) * rng.uniform(0.5, 2)
            let s = Predicates.sign(a, b, c)
            #expect(s == Predicates.sign(b, c, a) && s == Predicates.sign(c, a, b))
            #expect(s == -Predicates.sign(b, a, c) && s == -Predicates.sign(a, c, b) && s == -Predicates.sign(c, b, a))
            #expect(s == Predicates.exactSign(a, b, c))
            let naive = a.dot(b.cross(c))
            if abs(naive) < 1e-15 { exactPathUsed += 1 }
        }
        #expect(exactPathUsed > 1_000)
    }

    @Test func fastPathAgreesWithExact() {
        var rng = SplitMix64(seed: 22)
        for _ in 0..<5_000 {
            let a = rng.point(), b = rng.point(), c = rng.point()
            #expect(Predicates.sign(a, b, c) == Predicates.exactSign(a, b, c))
        }
    }

    @Test func crossings() {
        let a = pt(0, -10), b = pt(0, 10), c = pt(-10, 0), d = pt(10, 0)
        #expect(EdgeMath.crossProperly(a, b, c, d))
        #expect(!EdgeMath.crossProperly(a, b, c, pt(-5, 0)))
        // Sharing an endpoint is touching, not a proper crossing.
        #expect(!EdgeMath.crossProperly(a, b, b, d))
        #expect(EdgeMath.distance(edge: a, b, toEdge: b, d) == 0)
        #expect(abs(EdgeMath.distance(pt(5, 0), toEdge: a, b) - Angle(degrees: 5).radians) < 1e-15)
        #expect(abs(EdgeMath.distance(pt(0, 15), toEdge: a, b) - Angle(degrees: 5).radians) < 1e-15)
    }
}
