import Glibc
import JSONCore
import Testing
import TestRandom

@Suite struct GeneralNumberFormatTests {
    @Test(arguments: [
        // MongoDB's own example and the ones in the brief
        (354.473, "354.473"), (-1.94617, "-1.94617"), (200.0, "200"), (1e7, "1e+07"),
        // rounding to 6 significant digits
        (180.0000001, "180"), (90.0000001, "90"), (-180.5, "-180.5"), (1.0 / 3.0, "0.333333"),
        (1234567.0, "1.23457e+06"), (999999.5, "1e+06"), (9.999995, "10"), (9.9999949, "9.99999"), (0.1, "0.1"),
        (123456.0, "123456"), (100000.0, "100000"), (1943.8444924406048, "1943.84"),
        // exact ties go to even (123456.5 and 123457.5 are exact binary values)
        (123456.5, "123456"), (123457.5, "123458"),
        // fixed vs scientific switch points: -4 <= X < 6
        (0.0001, "0.0001"), (0.00001, "1e-05"), (0.000123456789, "0.000123457"), (1.5e-5, "1.5e-05"),
        (1e100, "1e+100"), (-2.5e-300, "-2.5e-300"),
        // extremes
        (Double.leastNonzeroMagnitude, "4.94066e-324"), (Double.greatestFiniteMagnitude, "1.79769e+308"),
        (Double.leastNormalMagnitude, "2.22507e-308"),
        // zero and non-finite values (the formatter must handle them even though JSON has none)
        (0.0, "0"), (-0.0, "-0"), (Double.infinity, "inf"), (-Double.infinity, "-inf"), (Double.nan, "nan"),
    ])
    func formatsLikePercentG(value: Double, expected: String) {
        #expect(GeneralNumberFormat.format(value) == expected)
    }

    @Test func otherPrecisions() {
        #expect(GeneralNumberFormat.format(2.5, significantDigits: 1) == "2")
        #expect(GeneralNumberFormat.format(3.5, significantDigits: 1) == "4")
        #expect(GeneralNumberFormat.format(0.15, significantDigits: 1) == "0.1") // 0.1499999… in binary
        #expect(GeneralNumberFormat.format(0.1, significantDigits: 17) == "0.10000000000000001")
        #expect(GeneralNumberFormat.format(12.0, significantDigits: 0) == "1e+01")
        #expect(GeneralNumberFormat.format(-Double.nan) == "-nan")
    }

    /// glibc's `%g` is the reference (C++ ostream formats through it): compare on random bit
    /// patterns, coordinate-like decimals (which hit the 7th-digit-is-5 cases) and integers.
    @Test func agreesWithGlibcPrintf() {
        var generator = SplitMix64(seed: 0x5eed)
        var values: [Double] = []
        for _ in 0..<3000 {
            let bits = generator.next()
            let value = Double(bitPattern: bits)
            if value.isFinite { values.append(value) }
        }
        for _ in 0..<3000 {
            let micro = Int64(bitPattern: generator.next() % 720_000_000) - 360_000_000
            values.append(Double(micro) / 1_000_000)
            values.append(Double(micro) / 10_000)
            values.append(Double(micro))
        }
        var mismatches: [String] = []
        for value in values {
            for precision in [1, 6, 17] {
                let ours = GeneralNumberFormat.format(value, significantDigits: precision)
                let libc = printfG(value, precision)
                if ours != libc { mismatches.append("\(value) %.\(precision)g: \(ours) vs \(libc)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    private func printfG(_ value: Double, _ precision: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = buffer.count
        _ = buffer.withUnsafeMutableBufferPointer { out in
            withVaList([value]) { vsnprintf(out.baseAddress, count, "%.\(precision)g", $0) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

