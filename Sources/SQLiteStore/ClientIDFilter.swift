import Glibc
import Storage
import Synchronization

/// A Bloom filter over every client id the store holds (merged into `client_ids`, or staged in
/// the mirror), so that ingest looks an id up in `client_ids` only when the filter cannot rule
/// it out: a new id — nearly every id a phone sends — then costs a few bit tests instead of a
/// B-tree probe (~1.4 µs a fix on the writer here, about a quarter of its ingest time).
///
/// Invariant: once `isReady`, every id stored in the database has its fingerprint in the
/// filter. A "no" is therefore certain; a "maybe" (a stored id, or a false positive: ~1% at
/// 10M ids, more past that, never wrong) falls back to the probe. Ids of deleted fixes stay in
/// the filter (only false positives). Until the filter is built, every answer is "maybe".
///
/// Building: `ClientIDFilterBuilder` scans `client_ids` in short read transactions on a thread
/// of its own while ingest goes on; fingerprints noted meanwhile are kept aside and added when
/// it installs the bits. Every id in `client_ids` when the scan ends was either there when the
/// scan passed its key (ids are only ever added, deletions aside) or came from the mirror, whose
/// ids are noted when loaded at start-up or staged later.
///
/// Threading: any thread; one lock (the writer is the only frequent caller).
final class ClientIDFilter: Sendable {
    private struct State {
        var bits: BloomBits?
        /// Fingerprints noted before the bits were installed (nil once installed or abandoned).
        var pending: [UInt64]? = []
    }

    private let state = Mutex(State())
    /// Bits of the installed filter, a power of two.
    let bitCount: Int

    /// Fingerprints kept aside while the filter is built: past this the build is abandoned
    /// (every answer stays "maybe"), so a build that cannot finish never holds memory unbounded.
    static let maxPending = 8_000_000

    /// The default size, 2^27 bits (16 MiB, taken from the system only as bits get set):
    /// ~13 bits an id at 10M stored ids.
    static let defaultBitCount = 1 << 27

    init(bitCount: Int = ClientIDFilter.defaultBitCount) {
        self.bitCount = BloomBits.roundedBitCount(bitCount)
    }

    /// Whether the filter answers (else every id is "maybe stored").
    var isReady: Bool { state.withLock { $0.bits != nil } }

    /// Whether an id with this fingerprint may be stored already; then notes it as stored.
    /// Call it for every id about to be stored, before storing it.
    func mayContainThenNote(_ fingerprint: UInt64) -> Bool {
        state.withLock { s in
            if let bits = s.bits { return bits.testAndSet(fingerprint) }
            Self.keepAside(fingerprint, in: &s)
            return true
        }
    }

    /// Whether an id with this fingerprint may be stored already, noting nothing: for ids that
    /// are looked up, not stored (an import's derived ids, kept only in `locations`).
    func mayContain(_ fingerprint: UInt64) -> Bool {
        state.withLock { s in s.bits?.contains(fingerprint) ?? true }
    }

    /// Notes ids as stored (the mirror's, loaded at start-up).
    func note(_ fingerprints: [UInt64]) {
        state.withLock { s in
            if let bits = s.bits {
                for fingerprint in fingerprints { _ = bits.testAndSet(fingerprint) }
            } else {
                for fingerprint in fingerprints { Self.keepAside(fingerprint, in: &s) }
            }
        }
    }

    private static func keepAside(_ fingerprint: UInt64, in s: inout State) {
        guard s.pending != nil else { return }
        s.pending?.append(fingerprint)
        if (s.pending?.count ?? 0) > maxPending { s.pending = nil }
    }

    /// Installs bits built from a scan of `client_ids` that began after every fingerprint noted
    /// so far was kept aside; returns false (installing nothing) if the build was abandoned.
    func install(_ bits: BloomBits) -> Bool {
        state.withLock { s in
            guard let pending = s.pending, s.bits == nil else { return false }
            for fingerprint in pending { _ = bits.testAndSet(fingerprint) }
            s.pending = nil
            s.bits = bits
            return true
        }
    }

    /// Gives up building (the scan failed): every answer stays "maybe".
    func abandon() {
        state.withLock { $0.pending = nil }
    }

    /// Scans `client_ids` on `readers`, `rowsPerRead` rows per read transaction (a snapshot held
    /// long would keep the WAL from starting over, see `WALBound`), and installs the bits.
    /// Returns whether the filter is ready; on any failure it is abandoned.
    @discardableResult
    func build(from readers: ReaderPool, rowsPerRead: Int = 65_536) -> Bool {
        guard let bits = BloomBits(bitCount: bitCount) else {
            abandon()
            return false
        }
        do {
            var after: (deviceKey: Int64, clientID: [UInt8])?
            while true {
                let last: (Int64, [UInt8])? = try readers.read { db in
                    let statement = try db.prepare(after == nil
                        ? "SELECT device_key, client_id FROM client_ids ORDER BY device_key, client_id LIMIT ?"
                        : "SELECT device_key, client_id FROM client_ids WHERE (device_key, client_id) > (?, ?) ORDER BY device_key, client_id LIMIT ?")
                    defer { statement.reset() }
                    if let after {
                        try statement.bind(after.deviceKey, at: 1)
                        try statement.bind(String(decoding: after.clientID, as: UTF8.self), at: 2)
                        try statement.bind(rowsPerRead, at: 3)
                    } else {
                        try statement.bind(rowsPerRead, at: 1)
                    }
                    var last: (Int64, [UInt8])?
                    var rows = 0
                    while try statement.step() {
                        let deviceKey = statement.int64(0)
                        let hash = statement.withText(1) { UnmergedFixes.ClientKey.idHash(bytes: $0) }
                        _ = bits.testAndSet(UnmergedFixes.ClientKey.fingerprint(deviceKey: deviceKey, idHash: hash))
                        rows += 1
                        if rows == rowsPerRead { last = (deviceKey, statement.withText(1) { Array($0) }) }
                    }
                    return last
                }
                guard let last else { break }
                after = (last.0, last.1)
            }
        } catch {
            abandon()
            return false
        }
        return install(bits)
    }
}

/// A blocked Bloom filter: each fingerprint sets 4 bits within one 512-bit block (one cache
/// line), chosen by the fingerprint's top bits; the bits within come from its low 36 bits. The
/// fingerprints are already well mixed (`UnmergedFixes.ClientKey.fingerprint`).
///
/// Owns its zeroed allocation (`calloc`, freed in `deinit`); pages are taken from the system
/// as bits get set. Not thread-safe on its own: `ClientIDFilter` guards it with its lock, and a
/// builder uses it alone until it hands it over.
final class BloomBits: @unchecked Sendable {
    private let words: UnsafeMutablePointer<UInt64>
    /// log2 of the number of 512-bit blocks.
    private let blockBits: Int
    /// Bits set by `testAndSet` that were not set before, for tests and sizing.
    private(set) var insertedCount = 0

    /// `bitCount` rounded to a power of two between 2^12 and 2^34.
    static func roundedBitCount(_ bitCount: Int) -> Int {
        var bits = 1 << 12
        while bits < bitCount && bits < 1 << 34 { bits <<= 1 }
        return bits
    }

    /// Nil when the system cannot give the memory.
    init?(bitCount: Int) {
        let bits = Self.roundedBitCount(bitCount)
        blockBits = bits.trailingZeroBitCount - 9
        let wordCount = bits / 64
        guard let memory = calloc(wordCount, MemoryLayout<UInt64>.stride) else { return nil }
        words = memory.bindMemory(to: UInt64.self, capacity: wordCount)
    }

    deinit { free(words) }

    /// Whether all 4 bits of `fingerprint` were set; sets them.
    func testAndSet(_ fingerprint: UInt64) -> Bool {
        let block = Int(truncatingIfNeeded: fingerprint >> UInt64(64 - blockBits)) << 3
        var present = true
        for probe in 0..<4 {
            let bit = Int(truncatingIfNeeded: (fingerprint >> UInt64(probe * 9)) & 511)
            let word = block + (bit >> 6)
            let mask: UInt64 = 1 << UInt64(bit & 63)
            if words[word] & mask == 0 {
                present = false
                words[word] |= mask
            }
        }
        if !present { insertedCount += 1 }
        return present
    }

    /// Whether all 4 bits of `fingerprint` are set; sets nothing.
    func contains(_ fingerprint: UInt64) -> Bool {
        let block = Int(truncatingIfNeeded: fingerprint >> UInt64(64 - blockBits)) << 3
        for probe in 0..<4 {
            let bit = Int(truncatingIfNeeded: (fingerprint >> UInt64(probe * 9)) & 511)
            if words[block + (bit >> 6)] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }
}
