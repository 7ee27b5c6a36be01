/// Formats a `Double` exactly as C's `printf("%.*g")` does in the "C" locale — and so as C++'s
/// `std::ostream << double` with default flags (precision 6), which is how MongoDB prints
/// coordinates in `longitude/latitude is out of bounds, lng: 354.473 lat: -1.94617`.
///
/// Rules of `%g` with precision P (0 counts as 1): round the exact binary value to P significant
/// digits (ties to even, since the exact decimal value of a double is used); with X the decimal
/// exponent after rounding, use fixed notation when −4 ≤ X < P, else scientific with an exponent
/// of at least two digits (`1e+07`, `1.5e-05`); then drop trailing zeros and a trailing point.
/// Non-finite values print as `nan`, `-nan`, `inf`, `-inf`; zero keeps its sign (`-0`).
///
/// Pure Swift and locale-independent (the decimal separator is always `.`): the exact decimal
/// expansion comes from a small big-integer computation, so there is no double rounding.
public enum GeneralNumberFormat {
    public static func format(_ value: Double, significantDigits: Int = 6) -> String {
        let precision = max(1, significantDigits)
        let negative = value.sign == .minus
        if value.isNaN { return negative ? "-nan" : "nan" }
        if value.isInfinite { return negative ? "-inf" : "inf" }
        if value == 0 { return negative ? "-0" : "0" }

        var (digits, exponent) = exactDecimalDigits(value.magnitude)
        if digits.count > precision {
            let first = digits[precision]
            let beyondHalf = digits[(precision + 1)...].contains { $0 != 0 }
            let roundUp = first > 5 || (first == 5 && (beyondHalf || digits[precision - 1] % 2 == 1))
            digits.removeSubrange(precision...)
            if roundUp {
                var position = precision - 1
                while position >= 0 && digits[position] == 9 {
                    digits[position] = 0
                    position -= 1
                }
                if position >= 0 {
                    digits[position] += 1
                } else {
                    digits.insert(1, at: 0)
                    digits.removeLast()
                    exponent += 1
                }
            }
        }
        while digits.count > 1 && digits.last == 0 { digits.removeLast() }

        var out = negative ? "-" : ""
        func append(_ slice: ArraySlice<UInt8>) {
            for d in slice { out.unicodeScalars.append(Unicode.Scalar(48 + d)) }
        }
        if exponent < -4 || exponent >= precision {
            append(digits[0..<1])
            if digits.count > 1 {
                out += "."
                append(digits[1...])
            }
            out += exponent < 0 ? "e-" : "e+"
            let magnitude = exponent.magnitude
            if magnitude < 10 { out += "0" }
            out += String(magnitude)
        } else if exponent >= 0 {
            let integerCount = exponent + 1
            if digits.count <= integerCount {
                append(digits[...])
                out += String(repeating: "0", count: integerCount - digits.count)
            } else {
                append(digits[0..<integerCount])
                out += "."
                append(digits[integerCount...])
            }
        } else {
            out += "0."
            out += String(repeating: "0", count: -exponent - 1)
            append(digits[...])
        }
        return out
    }

    /// The exact decimal expansion of a finite positive double: its significant digits (no
    /// leading or trailing zeros) and the decimal exponent of the first digit.
    static func exactDecimalDigits(_ value: Double) -> (digits: [UInt8], exponent: Int) {
        // value = significand × 2^binaryExponent, with an integer significand.
        let isSubnormal = value.exponentBitPattern == 0
        let significand = value.significandBitPattern | (isSubnormal ? 0 : 1 << 52)
        let binaryExponent = (isSubnormal ? 1 : Int(value.exponentBitPattern)) - 1075

        var number = BigUInt(significand)
        var decimalExponent = 0
        if binaryExponent >= 0 {
            number.shiftLeft(by: binaryExponent)
        } else {
            // m × 2^-k = m × 5^k × 10^-k
            var k = -binaryExponent
            while k >= 13 {
                number.multiply(by: 1_220_703_125) // 5^13
                k -= 13
            }
            var rest: UInt32 = 1
            for _ in 0..<k { rest *= 5 }
            number.multiply(by: rest)
            decimalExponent = binaryExponent
        }
        var digits = number.decimalDigits()
        let firstDigitExponent = decimalExponent + digits.count - 1
        while digits.count > 1 && digits.last == 0 { digits.removeLast() }
        return (digits, firstDigitExponent)
    }
}

/// Just enough of an unsigned big integer for exact decimal expansion of a double.
private struct BigUInt {
    /// Little-endian 32-bit limbs; no trailing zero limbs except for the value zero.
    private var limbs: [UInt32]

    init(_ value: UInt64) {
        limbs = [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)]
        normalize()
    }

    private mutating func normalize() {
        while limbs.count > 1 && limbs.last == 0 { limbs.removeLast() }
    }

    mutating func multiply(by factor: UInt32) {
        var carry: UInt64 = 0
        for i in limbs.indices {
            let product = UInt64(limbs[i]) * UInt64(factor) + carry
            limbs[i] = UInt32(truncatingIfNeeded: product)
            carry = product >> 32
        }
        if carry != 0 { limbs.append(UInt32(carry)) }
        normalize()
    }

    mutating func shiftLeft(by bits: Int) {
        let limbShift = bits / 32
        let bitShift = UInt32(bits % 32)
        if bitShift != 0 {
            var carry: UInt32 = 0
            for i in limbs.indices {
                let limb = limbs[i]
                limbs[i] = (limb << bitShift) | carry
                carry = limb >> (32 - bitShift)
            }
            if carry != 0 { limbs.append(carry) }
        }
        if limbShift > 0 { limbs.insert(contentsOf: repeatElement(0, count: limbShift), at: 0) }
        normalize()
    }

    /// Decimal digits, most significant first, without leading zeros (`[0]` for zero).
    func decimalDigits() -> [UInt8] {
        var work = limbs
        var chunks: [UInt32] = [] // base 10^9, least significant first
        while !(work.count == 1 && work[0] == 0) {
            var remainder: UInt64 = 0
            for i in work.indices.reversed() {
                let current = (remainder << 32) | UInt64(work[i])
                work[i] = UInt32(current / 1_000_000_000)
                remainder = current % 1_000_000_000
            }
            chunks.append(UInt32(remainder))
            while work.count > 1 && work.last == 0 { work.removeLast() }
        }
        var digits: [UInt8] = []
        for (n, chunk) in chunks.reversed().enumerated() {
            var chunkDigits = [UInt8](repeating: 0, count: 9)
            var c = chunk
            for position in (0..<9).reversed() {
                chunkDigits[position] = UInt8(c % 10)
                c /= 10
            }
            if n == 0 {
                digits.append(contentsOf: chunkDigits.drop { $0 == 0 })
            } else {
                digits.append(contentsOf: chunkDigits)
            }
        }
        return digits.isEmpty ? [0] : digits
    }
}
