@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// The literals a dump writes read back as exactly the value they came from: reals from
/// random bits and from short decimals (where SQLite's reading and strtod's can differ),
/// text with NULs and bytes that are not UTF-8, and blobs.
final class SQLLiteralTests: CipherKitTestCase {
    func testEveryLiteralReadsBackAsTheSameValueForASweepOfRandomValues() throws {
        let (generator, seed) = SeededGenerator.forSweep("literal sweep", variable: "CIPHERCTL_LITERAL_SEED")
        var random = generator
        let connection = try Connection(path: ":memory:", mode: .readWrite)
        let reader = try SQLLiteral.realReader(on: connection)
        for round in 0..<sweepCases("CIPHERCTL_LITERAL_CASES", quick: 12000) {
            var literal: [UInt8] = []
            let expected: DatabaseValue
            switch round % 6 {
            case 0:
                var value: Double
                repeat { value = Double(bitPattern: random.next()) } while value.isNaN
                SQLLiteral.append(real: value, readBackBy: reader, to: &literal)
                expected = .real(value)
            case 1:
                let bytes = (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                SQLLiteral.append(text: bytes, to: &literal)
                let back = try XCTUnwrap(try connection.rows("SELECT CAST(" + String(decoding: literal, as: UTF8.self) + " AS BLOB), typeof(" + String(decoding: literal, as: UTF8.self) + ")").first)
                XCTAssertEqual(back[0], .blob(bytes), "seed \(seed) round \(round)")
                XCTAssertEqual(back[1], .text("text"), "seed \(seed) round \(round)")
                continue
            case 3, 4, 5:
                let value = Self.shortDecimal(using: &random)
                SQLLiteral.append(real: value, readBackBy: reader, to: &literal)
                expected = .real(value)
            default:
                let bytes = (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                SQLLiteral.appendHex(bytes, to: &literal)
                expected = .blob(bytes)
            }
            let back = try connection.scalar("SELECT " + String(decoding: literal, as: UTF8.self))
            if case .real(let a) = expected, case .real(let b)? = back {
                XCTAssertEqual(a.bitPattern, b.bitPattern, "seed \(seed) round \(round): \(String(decoding: literal, as: UTF8.self))")
            } else {
                XCTAssertEqual(back, expected, "seed \(seed) round \(round)")
            }
        }
    }

    func testNegativeZeroKeepsItsSignAndACarriageReturnIsNeverWrittenRaw() throws {
        let connection = try Connection(path: ":memory:", mode: .readWrite)
        let reader = try SQLLiteral.realReader(on: connection)
        var zero: [UInt8] = []
        SQLLiteral.append(real: -0.0, readBackBy: reader, to: &zero)
        XCTAssertEqual(String(decoding: zero, as: UTF8.self), "-0.0")
        guard case .real(let back)? = try connection.scalar("SELECT " + String(decoding: zero, as: UTF8.self)) else { return XCTFail("not a real") }
        XCTAssertEqual(back.bitPattern, (-0.0 as Double).bitPattern)
        for text in ["a\r\nb", "\r", "x\\ry\r\n", "\\\r", "it's\r"] {
            var literal: [UInt8] = []
            SQLLiteral.append(text: Array(text.utf8), to: &literal)
            XCTAssertFalse(literal.contains(13), text.debugDescription)
            let sql = String(decoding: literal, as: UTF8.self)
            XCTAssertEqual(try connection.scalar("SELECT CAST(\(sql) AS BLOB)"), .blob(Array(text.utf8)), sql)
        }
    }

    /// The double nearest a decimal of 13 to 16 significant digits, anywhere in the range of
    /// exponents: the values people store, whose shortest literal is 15 or 16 digits long.
    private static func shortDecimal(using random: inout SeededGenerator) -> Double {
        let digits = Int.random(in: 13...16, using: &random)
        let mantissa = (0..<digits).map { index in String(Int.random(in: (index == 0 ? 1 : 0)...9, using: &random)) }.joined()
        let sign = Bool.random(using: &random) ? "-" : ""
        return Double(sign + mantissa + "e" + String(Int.random(in: -320...290, using: &random)))!
    }
}
