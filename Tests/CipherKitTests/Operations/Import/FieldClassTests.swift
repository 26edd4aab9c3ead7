@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// A csv field is a real only when written as SQLite writes that real: the rule read from
/// the text alone agrees with strtod and SQLite's own rendering, for reals from random bits
/// and short decimals as SQLite writes them, and for each written again another way.
final class FieldClassTests: XCTestCase {
    func testTheRuleReadFromTheTextAgreesWithSQLitesRendering() throws {
        let (generator, seed) = SeededGenerator.forSweep("field class sweep", variable: "CIPHERCTL_FIELD_SEED")
        var random = generator
        var decided = 0
        for round in 0..<sweepCases("CIPHERCTL_FIELD_CASES", quick: 20000) {
            var value: Double
            if round % 2 == 0 {
                repeat { value = Double(bitPattern: random.next()) } while !value.isFinite
            } else {
                value = Double(Int.random(in: -999_999...999_999, using: &random)) * pow(10, Double(Int.random(in: -25...25, using: &random)))
            }
            var written: [UInt8] = []
            TextRendering.append(real: value, roundTrip: round % 3 != 0, to: &written)
            let text = String(decoding: written, as: UTF8.self)
            // The same number written other ways, which are not how SQLite writes it.
            let variants = [text, text + "0", text.replacingOccurrences(of: ".0e", with: "e"), "0" + text, text.replacingOccurrences(of: "e+", with: "e"),
                            text.replacingOccurrences(of: ".", with: ".0"), String(format: "%.15g", value), String(format: "%.17g", value), "+" + text]
            for variant in variants {
                let bytes = Array(variant.utf8)
                let label = "seed \(seed) round \(round): \(variant) (of \(value))"
                // The rule: strtod, then SQLite's rendering, gives the field back.
                let expected = bytes.contains(UInt8(ascii: ".")) && bytes.withUnsafeBytes(FieldClass.renderedForm)
                if let viaText = bytes.withUnsafeBytes(FieldClass.writtenForm) {
                    decided += 1
                    XCTAssertEqual(viaText, expected, "read from the text: \(label)")
                }
                XCTAssertEqual(bytes.withUnsafeBytes(FieldClass.isCanonicalReal), expected, label)
            }
            XCTAssertEqual(written.withUnsafeBytes(FieldClass.isCanonicalReal), !(value == 0 && value.sign == .minus), "as SQLite writes it: \(text)")
            XCTAssertEqual(FieldClass(written[...]), value == 0 && value.sign == .minus ? .text : .real, text)
        }
        print("field class sweep: \(decided) fields decided from their text alone, all as strtod and SQLite decide")
        XCTAssertGreaterThan(decided, 0)
    }
}
