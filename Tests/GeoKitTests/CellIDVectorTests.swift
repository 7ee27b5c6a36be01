import Testing
@testable import GeoKit

/// Known vectors from 2dsphere.md (the S2 libraries' own tests), checked bit for bit.
struct CellIDVectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        let lat: Double
        let lng: Double
        let hex: UInt64
        var description: String { "(\(lat), \(lng))" }
    }

    static let vectors: [Vector] = [
        Vector(lat: 49.703498679, lng: 11.770681595, hex: 0x47a1_cbd5_9552_2b39),
        Vector(lat: 55.685376759, lng: 12.588490937, hex: 0x4652_5318_b63b_e0f9),
        Vector(lat: 45.486546517, lng: -93.449700022, hex: 0x52b3_0b71_698e_729d),
        Vector(lat: -30.694551352, lng: -30.048758753, hex: 0x010a_06c0_a948_cf5d),
        Vector(lat: -75.000000031, lng: 0.000000133, hex: 0xb09d_ff88_2a78_09e1),
        Vector(lat: 38.899730392, lng: -99.901813021, hex: 0x87a1_0000_0000_0001),
        Vector(lat: 10.050986518, lng: 78.293170610, hex: 0x3b00_9555_5555_5555),
        Vector(lat: -69.219262171, lng: 49.670072392, hex: 0xb112_966a_aaaa_aaab),
    ]

    @Test("lat/lng → leaf id matches S2 exactly", arguments: vectors)
    func knownVector(_ vector: Vector) {
        let id = CellID(LatLng(degreesLatitude: vector.lat, longitude: vector.lng))
        #expect(id.id == vector.hex, "got \(String(id.id, radix: 16))")
        #expect(id.isLeaf && id.isValid && id.level == 30)
        #expect(CellID(token: id.token) == id)
        // The decoded leaf maps back to itself through its centre.
        #expect(CellID(id.toPoint()) == id)
    }

    @Test("faces of the axis points", arguments: [
        (0.0, 0.0, 0), (0.0, 90.0, 1), (90.0, 0.0, 2), (0.0, 180.0, 3), (0.0, -90.0, 4), (-90.0, 0.0, 5),
    ])
    func faces(_ lat: Double, _ lng: Double, _ face: Int) {
        let id = CellID(LatLng(degreesLatitude: lat, longitude: lng))
        #expect(id.face == face)
        #expect(id.parent(level: 0) == CellID.face(face))
        #expect((id.int64Key < 0) == (face >= 4))
    }

    @Test func tokens() {
        #expect(CellID.none.token == "X")
        #expect(CellID(token: "X") == CellID.none)
        #expect(CellID.face(0).token == "1")
        #expect(CellID.face(5).token == "b")
        #expect(CellID(id: 0x47a1_cbd5_9552_2b39).token == "47a1cbd595522b39")
        #expect(CellID(id: 0x87a1_0000_0000_0001).parent(level: 5).token == "87a4")
        #expect(CellID(token: "87A4") == CellID(id: 0x87a4_0000_0000_0000))
        #expect(CellID(token: "") == nil)
        #expect(CellID(token: "12345678901234567") == nil)
        #expect(CellID(token: "zz") == nil)
        #expect(CellID(token: "87a4")?.isValid == true)
        #expect(CellID(token: "87a2")?.isValid == false)
    }

    @Test func signedKeys() {
        let face4 = CellID.face(4)
        #expect(face4.int64Key < 0)
        #expect(face4.rangeMin.int64Key == Int64.min + 1)
        #expect(CellID.face(3).rangeMax.int64Key == Int64.max)
        #expect(CellID(int64Key: face4.int64Key) == face4)
        #expect(CellID.face(5).rangeMax.int64Key < 0)
    }

    @Test func hierarchy() {
        let leaf = CellID(id: 0x47a1_cbd5_9552_2b39)
        let parent = leaf.parent(level: 10)
        #expect(parent.level == 10)
        #expect(parent.children.count == 4)
        #expect(parent.childBegin == parent.children[0])
        #expect(parent.children[3].next == parent.childEnd)
        #expect(parent.children.map(\.level) == [11, 11, 11, 11])
        #expect(parent.children.map { $0.parent() } == [parent, parent, parent, parent])
        #expect(parent.rangeMin == parent.children[0].rangeMin)
        #expect(parent.rangeMax == parent.children[3].rangeMax)
        #expect(CellID.begin(level: 0) == CellID.face(0))
        #expect(CellID.end(level: 0) == CellID.face(5).next)
        #expect(CellID.face(2).next == CellID.face(3))
        #expect(CellID.face(3).prev == CellID.face(2))
        #expect(leaf.commonAncestorLevel(leaf.parent(level: 7)) == 7)
        #expect(CellID.face(0).commonAncestorLevel(CellID.face(1)) == nil)
        #expect(leaf.description.hasPrefix("2/"))
        #expect(!CellID.none.isValid && !CellID.sentinel.isValid)
    }
}
