/// Chunking for the streaming targets: the same input fed in pieces whose sizes come from a
/// seeded generator (TestRandom's SplitMix64), so every run of an input is reproducible.
import TestRandom

/// `bytes` cut into consecutive pieces of 1…`maxChunk` bytes (sizes drawn from `seed`), in order.
func chunks(of bytes: [UInt8], seed: UInt64, maxChunk: Int) -> [ArraySlice<UInt8>] {
    var random = SplitMix64(seed: seed)
    var pieces: [ArraySlice<UInt8>] = []
    var offset = 0
    while offset < bytes.count {
        let size = Int(random.next() % UInt64(max(1, maxChunk))) + 1
        let end = min(bytes.count, offset + size)
        pieces.append(bytes[offset..<end])
        offset = end
    }
    return pieces
}
