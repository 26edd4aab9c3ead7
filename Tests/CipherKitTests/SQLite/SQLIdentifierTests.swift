@testable import CipherKit
import TestSupport
import XCTest

/// A quoted name is one identifier to SQLite whatever it holds: quotes followed by combining
/// marks (one Swift character with them), other quotes, semicolons and comments, over a sweep
/// of generated names.
final class SQLIdentifierTests: XCTestCase {
    func testEveryGeneratedNameQuotedIsOneIdentifierThatSQLiteReadsBackUnchanged() throws {
        let (generator, seed) = SeededGenerator.forSweep("identifier sweep", variable: "CIPHERCTL_IDENTIFIER_SEED")
        var random = generator
        let pieces = ["\"", "\"\u{301}", "'", "'\u{308}", ";", "--", "/*", " ", "a", "é", "\u{301}", "DROP TABLE t", ")", "`", "["]
        let connection = try Connection(path: ":memory:", mode: .readWrite)
        try connection.execute("CREATE TABLE t(x)")
        for round in 0..<200 {
            let name = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let label = "seed \(seed) round \(round): \(Array(name.unicodeScalars))"
            try connection.execute("CREATE TABLE \(SQLIdentifier.quote(name))(v)")
            let names = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 't'")
            XCTAssertEqual(names.count, 1, label)
            XCTAssertEqual(names.first?[0], .text(name), label)
            try connection.execute("DROP TABLE \(SQLIdentifier.quote(name))")
        }
        XCTAssertEqual(try connection.rows("SELECT count(*) FROM t").first?[0], .integer(0))
    }

    func testAQuoteFollowedByACombiningMarkIsDoubledLikeAnyOther() {
        XCTAssertEqual(Array(SQLIdentifier.quote("a\"\u{301}b").unicodeScalars), Array("\"a\"\"\u{301}b\"".unicodeScalars))
        XCTAssertEqual(Array("it'\u{308}s".replacingScalar("'", with: "''").unicodeScalars), Array("it''\u{308}s".unicodeScalars))
    }
}
