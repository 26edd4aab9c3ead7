import CRowFormat
import CSQLCipher
import TestSupport
import XCTest

/// `rowformat_real`, which writes the REALs of csv and json without printf where it can prove
/// the digits, against `csqlcipher_format_real` (SQLite's own printf, and strtod for json's
/// round trip), byte for byte: doubles from random bits and the shapes data has (decimal
/// fractions, products, integers, halves that sit on a rounding tie, powers of ten and their
/// neighbours), with and without the round trip. A seed is printed to replay a run
/// (`CIPHERCTL_REALTEXT_SEED`); `CIPHERCTL_REALTEXT_CASES` widens it.
final class RealTextTests: XCTestCase {
    func testRealsAreWrittenByteForByteAsSQLitesPrintfAndStrtodWriteThem() {
        let (generator, seed) = SeededGenerator.forSweep("real text sweep", variable: "CIPHERCTL_REALTEXT_SEED")
        var random = generator
        var values = Self.corners
        for index in 0..<sweepCases("CIPHERCTL_REALTEXT_CASES", quick: 200_000) {
            values.append(Self.value(shape: index % 6, &random))
        }
        var mismatches: [String] = []
        for value in values {
            for roundTrip: Int32 in [0, 1] {
                let ours = Self.text { rowformat_real(value, roundTrip, $0) }
                let sqlite = Self.text { csqlcipher_format_real(value, roundTrip, $0, 40) }
                if ours != sqlite, mismatches.count < 10 {
                    mismatches.append("\(value.bitPattern) round trip \(roundTrip): \(ours) against SQLite's \(sqlite)")
                }
            }
        }
        XCTAssertEqual(mismatches, [], "seed \(seed)")
    }

    /// Zeros, infinities, NaN, the edges of printf's fixed notation and of the exact range.
    private static let corners: [Double] = {
        var corners: [Double] = [0, -0.0, .infinity, -.infinity, .nan, 0.1, 0.3, 1.0 / 3, 2.5, -2.5, 100, 1e20, 5e-324,
                                 .greatestFiniteMagnitude, .leastNormalMagnitude, 9_007_199_254_740_993, 123_456_789_012_345.6]
        for exponent in -10...18 {
            let power = Double("1e\(exponent)")!
            corners += [power, power.nextUp, power.nextDown, -power, power * 9.999999999999999, power * 0.5]
        }
        return corners
    }()

    private static func value(shape: Int, _ random: inout SeededGenerator) -> Double {
        switch shape {
        case 0: return Double(bitPattern: random.next())
        case 1: return Double(Int64.random(in: -2_000_000_000...2_000_000_000, using: &random)) / Double("1e\(Int.random(in: 0...12, using: &random))")!
        case 2: return Double(Int.random(in: 0...10_000_000, using: &random)) * 0.37
        case 3: return Double(Int64.random(in: -(1 << 53)...(1 << 53), using: &random))
        case 4: return (Double(Int.random(in: 0...999_999_999_999_999, using: &random)) + 0.5) / Double("1e\(Int.random(in: 0...16, using: &random))")!
        default: return Double(sign: .plus, exponent: Int.random(in: -40...60, using: &random), significand: 1 + Double.random(in: 0..<1, using: &random))
        }
    }

    private static func text(_ format: (UnsafeMutablePointer<CChar>) -> Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 48)
        let count = buffer.withUnsafeMutableBufferPointer { Int(format($0.baseAddress!)) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
