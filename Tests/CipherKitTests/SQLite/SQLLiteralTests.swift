@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// The literals a dump writes read back as exactly the value they came from: reals from
/// random bits, text with NULs and bytes that are not UTF-8, and blobs.
final class SQLLiteralTests: CipherKitTestCase {
    func testEveryLiteralReadsBackAsTheSameValueForASweepOfRandomValues() throws {
        let (generator, seed) = SeededGenerator.forSweep("literal sweep", variable: "CIPHERCTL_LITERAL_SEED")
        var random = generator
        let connection = try Connection(path: ":memory:", mode: .readWrite)
        for round in 0..<3000 {
            var literal: [UInt8] = []
            let expected: DatabaseValue
            switch round % 3 {
            case 0:
                var value: Double
                repeat { value = Double(bitPattern: random.next()) } while value.isNaN
                SQLLiteral.append(real: value, to: &literal)
                expected = .real(value)
            case 1:
                let bytes = (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                SQLLiteral.append(text: bytes, to: &literal)
                let back = try XCTUnwrap(try connection.rows("SELECT CAST(" + String(decoding: literal, as: UTF8.self) + " AS BLOB), typeof(" + String(decoding: literal, as: UTF8.self) + ")").first)
                XCTAssertEqual(back[0], .blob(bytes), "seed \(seed) round \(round)")
                XCTAssertEqual(back[1], .text("text"), "seed \(seed) round \(round)")
                continue
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
}
