/// An sRGB colour written as CSS hex, `#rrggbb` (lower case).
public struct ScatterColor: Sendable, Hashable, CustomStringConvertible {
    /// `#rrggbb`.
    public let hex: String

    /// A colour from its `#rrggbb` spelling (stored as given; the palette uses lower case).
    init(_ hex: String) {
        self.hex = hex
    }

    public var description: String { hex }
}

/// The fixed colour palette of scatter exports and how series keys map onto it.
///
/// The palette has 21 colours chosen to stay apart from each other and to show on a light
/// basemap (no near-white entries); neighbours in the list differ strongly in hue, so linear
/// probing moves to a clearly different colour.
///
/// A key's *preferred* colour is `colors[fnv1a64(key) % colors.count]`, where FNV-1a runs over
/// the key's UTF-8 bytes: stable across processes, restarts and platforms (unlike Swift's
/// randomly seeded `Hasher`). Within one export, ``Assigner`` resolves collisions by linear
/// probing in the order keys are presented — ascending key order for the export writers — so the
/// assignment depends only on the set of keys: up to `colors.count` series get distinct colours,
/// and beyond that colours repeat in rounds.
public enum ScatterPalette {
    /// The palette, in probing order.
    public static let colors: [ScatterColor] = [
        "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#0fa3b1", "#f032e6",
        "#bcbd22", "#000075", "#9a6324", "#56b4e9", "#800000", "#0b6e2e", "#ff8fab",
        "#e6b400", "#005f73", "#b07cc6", "#555555", "#808000", "#000000", "#c51b7d",
    ].map(ScatterColor.init)

    /// The 64-bit FNV-1a hash of the UTF-8 bytes of `key`
    /// (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
    public static func fnv1a64(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The palette index a key gets when nothing else claims it.
    public static func preferredIndex(forKey key: String) -> Int {
        Int(fnv1a64(key) % UInt64(colors.count))
    }

    /// The colour a key gets when nothing else claims it (no probing).
    public static func preferredColor(forKey key: String) -> ScatterColor {
        colors[preferredIndex(forKey: key)]
    }

    /// Colours for a whole set of keys: sorts them (by `String` ordering) and runs an
    /// ``Assigner`` over them, exactly as the export writers do with key-sorted input.
    public static func assignColors(toKeys keys: some Sequence<String>) -> [String: ScatterColor] {
        var assigner = Assigner()
        var result: [String: ScatterColor] = [:]
        for key in Set(keys).sorted() {
            result[key] = assigner.color(forKey: key)
        }
        return result
    }

    /// Hands out colours to series keys within one export, avoiding repeats while any palette
    /// colour is unused.
    ///
    /// Each new key takes its preferred index, or the next free one (wrapping). Once every
    /// colour is taken a new round starts with all colours free again. A key asked for twice
    /// gets its first answer. Deterministic given the sequence of distinct keys; memory grows
    /// with the number of distinct keys only.
    public struct Assigner: Sendable {
        private var taken = [Bool](repeating: false, count: ScatterPalette.colors.count)
        private var takenCount = 0
        private var assigned: [String: Int] = [:]

        public init() {}

        /// The colour of `key` in this export.
        public mutating func color(forKey key: String) -> ScatterColor {
            ScatterPalette.colors[index(forKey: key)]
        }

        /// The palette index of `key` in this export.
        public mutating func index(forKey key: String) -> Int {
            if let known = assigned[key] { return known }
            let count = ScatterPalette.colors.count
            if takenCount == count {
                taken = [Bool](repeating: false, count: count)
                takenCount = 0
            }
            var index = ScatterPalette.preferredIndex(forKey: key)
            while taken[index] {
                index = index == count - 1 ? 0 : index + 1
            }
            taken[index] = true
            takenCount += 1
            assigned[key] = index
            return index
        }
    }
}
