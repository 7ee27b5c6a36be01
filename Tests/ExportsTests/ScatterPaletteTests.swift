import Exports
import Testing

@Suite("Scatter palette")
struct ScatterPaletteTests {
    @Test("at least 20 distinct, well-formed colours")
    func paletteShape() {
        let hexes = ScatterPalette.colors.map(\.hex)
        #expect(hexes.count >= 20)
        #expect(Set(hexes).count == hexes.count)
        for hex in hexes {
            #expect(hex.count == 7 && hex.hasPrefix("#"))
            #expect(hex.dropFirst().allSatisfy { "0123456789abcdef".contains($0) })
        }
    }

    @Test("FNV-1a 64 matches the published test vectors (stable across runs and platforms)")
    func fnvVectors() {
        #expect(ScatterPalette.fnv1a64("") == 0xcbf2_9ce4_8422_2325)
        #expect(ScatterPalette.fnv1a64("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(ScatterPalette.fnv1a64("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test("the same key always gets the same colour (golden values)", arguments: [
        ("a", "#000000"), ("d_1", "#800000"), ("d_2", "#e6194b"), ("device-42", "#ff8fab"), ("Pixel 8", "#e6b400"),
    ])
    func goldenColour(key: String, expected: String) {
        // A change here recolours every chart users have seen: only change it deliberately.
        #expect(ScatterPalette.preferredColor(forKey: key).hex == expected)
        var assigner = ScatterPalette.Assigner()
        #expect(assigner.color(forKey: key).hex == expected)
    }

    @Test("a collision moves the later key (in sorted order) to the next colour")
    func linearProbing() {
        // "a" and "u_alice" both prefer index 19 (#000000); "a" sorts first and keeps it.
        #expect(ScatterPalette.preferredIndex(forKey: "a") == 19)
        #expect(ScatterPalette.preferredIndex(forKey: "u_alice") == 19)
        let colors = ScatterPalette.assignColors(toKeys: ["u_alice", "a"])
        #expect(colors["a"]?.hex == "#000000")
        #expect(colors["u_alice"]?.hex == "#c51b7d")
    }

    @Test("up to 20 series get distinct colours, whatever order the keys come in")
    func distinctUpToTwenty() {
        for count in [2, 5, 13, 20, 21] {
            let keys = (0..<count).map { "device-\($0 * 7919)" }
            let colors = ScatterPalette.assignColors(toKeys: keys)
            #expect(colors.count == count)
            #expect(Set(colors.values).count == count, "\(count) series")
            #expect(ScatterPalette.assignColors(toKeys: keys.reversed()) == colors)
            #expect(ScatterPalette.assignColors(toKeys: keys.shuffled()) == colors)
        }
    }

    @Test("probing is deterministic and matches the streaming assigner on sorted keys")
    func probingDeterministic() {
        let keys = (0..<60).map { "u_\($0)" }.sorted()
        var assigner = ScatterPalette.Assigner()
        let streamed = keys.map { assigner.color(forKey: $0) }
        let batch = ScatterPalette.assignColors(toKeys: keys)
        #expect(streamed == keys.map { batch[$0] })
        // Asking again returns the first answer.
        #expect(assigner.color(forKey: keys[3]) == streamed[3])
        // The first key of an export always gets its preferred colour.
        #expect(streamed[0] == ScatterPalette.preferredColor(forKey: keys[0]))
        // 60 series over 21 colours: every colour used, none more than ⌈60/21⌉ = 3 times.
        var uses: [ScatterColor: Int] = [:]
        for color in streamed { uses[color, default: 0] += 1 }
        #expect(uses.count == ScatterPalette.colors.count)
        #expect(uses.values.allSatisfy { $0 <= 3 })
    }
}
