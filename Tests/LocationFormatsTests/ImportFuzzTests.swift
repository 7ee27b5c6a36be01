import LocationFormats
import Testing

/// SplitMix64 for the seeded import fuzz (the seed is in every failure message).
struct ImportFuzzRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct ImportFuzzTests {
    static let samples: [String] = [
        recordsJSON, semanticJSON,
        #"{"semanticSegments": [{"startTime": "2023-04-01T10:00:00Z", "timelinePath": [{"point": "48.1°, 11.5°", "time": "2023-04-01T10:05:00Z"}]}], "rawSignals": [{"position": {"LatLng": "geo:48.1,11.5", "timestamp": "2023-04-01T10:05:00Z"}}]}"#,
        #"{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}, "properties": {"times": ["2023-11-14T00:00:00Z", 1699920060]}}]}"#,
        #"<gpx><trk><trkseg><trkpt lat="48.1" lon="11.5"><time>2023-11-14T00:00:00Z</time><ele>5</ele></trkpt></trkseg></trk></gpx>"#,
        "lat,lon,time,accuracy\n48.1,11.5,2023-11-14T00:00:00Z,5\n\"48.2\",11.6,1699920060,\n",
        #"[{"location": [11.5, 48.1], "timestamp": 1699920000, "id": "x"}]"#,
    ]

    static let alphabet: [UInt8] = Array(#"{}[],:"\ 0123456789-.eE<>/=°;\#n"#.utf8) + [0x00, 0xC3, 0xFF]

    /// Mutated samples in random chunks: no trap, and the summary's invariants always hold.
    @Test func mutatedFilesNeverTrapAndKeepTheirCounts() {
        let seed: UInt64 = 0x1517_0001
        var random = ImportFuzzRandom(state: seed)
        var stoppedCount = 0, emittedTotal = 0
        for iteration in 0..<3_000 {
            var bytes = Array(Self.samples[iteration % Self.samples.count].utf8)
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let position = Int.random(in: 0...bytes.count, using: &random)
                let byte = Self.alphabet.randomElement(using: &random) ?? 0
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where position < bytes.count: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                case 2 where position < bytes.count: bytes.remove(at: position)
                default: bytes.removeSubrange(min(position, bytes.count)...)
                }
            }
            var importer = HistoryImporter(options: ImportOptions(now: testNow, batchSize: Int.random(in: 1...4, using: &random),
                                                                  maxRecordBytes: 1024, jsonLimits: .init(maxDepth: 8)))
            var fixes: [Fix] = []
            var offset = 0
            while offset < bytes.count {
                let size = min(bytes.count - offset, Int.random(in: 1...64, using: &random))
                importer.append(Array(bytes[offset..<(offset + size)]))
                offset += size
                while let batch = importer.nextBatch() { fixes += batch }
            }
            importer.finish()
            while let batch = importer.nextBatch() { fixes += batch }
            let s = importer.summary
            let context = "seed \(seed), iteration \(iteration): \(String(decoding: bytes, as: UTF8.self))"
            #expect(s.points == s.emitted + s.rejected, "\(context)")
            #expect(s.emitted == fixes.count, "\(context)")
            #expect(s.rejectedByCode.values.reduce(0, +) == s.rejected, "\(context)")
            #expect(s.samples.count <= 10 && s.samples.map(\.index) == s.samples.map(\.index).sorted(), "\(context)")
            #expect(fixes.allSatisfy { $0.timestampWasGiven && $0.latitude.magnitude <= 90 && $0.longitude.magnitude <= 180 && $0.clientID != nil }, "\(context)")
            if s.stopped != nil { stoppedCount += 1 }
            emittedTotal += fixes.count
        }
        #expect(stoppedCount > 100 && emittedTotal > 1_000, "mutations both break files and leave them readable")
    }
}
