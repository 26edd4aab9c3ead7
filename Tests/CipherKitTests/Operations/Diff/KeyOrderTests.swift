@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// The merge join of `diff` needs KeyOrder to sort exactly as SQLite's ORDER BY … COLLATE
/// BINARY does, over a seeded sweep of mixed values.
final class KeyOrderTests: CipherKitTestCase {
    func testKeyOrderSortsAsSQLiteDoesForASweepOfMixedValues() throws {
        let (generator, seed) = SeededGenerator.forSweep("key order sweep", variable: "CIPHERCTL_ORDER_SEED")
        var random = generator
        let connection = try Connection(path: ":memory:", mode: .readWrite)
        try connection.execute("CREATE TABLE v(x)")
        let insert = try connection.prepare("INSERT INTO v VALUES (?)")
        for _ in 0..<500 {
            let value: DatabaseValue
            switch Int.random(in: 0..<8, using: &random) {
            case 0: value = .null
            case 1: value = .integer(Int64.random(in: -1000...1000, using: &random))
            case 2: value = .real(Double(Int.random(in: -1000...1000, using: &random)) / 8)
            case 3: value = .text(String((0..<Int.random(in: 0...4, using: &random)).map { _ in ["a", "B", "é", "z", "0", " "].randomElement(using: &random)! }.joined()))
            case 4: value = .blob((0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            // Around 2^53, where an integer rounds to a neighbouring double.
            case 6: value = .integer((1 << 53) + Int64.random(in: -3...3, using: &random))
            case 7: value = .real([Double(1 << 53), Double(1 << 53) + 2, 9.223372036854775807e18, -0.0, 0.0].randomElement(using: &random)!)
            default: value = .integer(Int64.random(in: .min ... .max, using: &random))
            }
            try insert.bind(value, at: 1)
            _ = try insert.step()
            insert.reset()
        }
        let sqlite = try connection.rows("SELECT x FROM v ORDER BY x COLLATE BINARY").map { $0[0] }
        let ours = try connection.rows("SELECT x FROM v").map { ExactValue($0[0]) }.sorted { KeyOrder.compare($0, $1) < 0 }
        XCTAssertEqual(ours.count, sqlite.count)
        for (index, (a, b)) in zip(ours, sqlite.map { ExactValue($0) }).enumerated() where KeyOrder.compare(a, b) != 0 {
            XCTFail("seed \(seed): position \(index): \(a) where SQLite has \(b)")
            break
        }
    }
}
