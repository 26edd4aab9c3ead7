import CipherKit
import Foundation
import TestSupport
import XCTest

final class DatabaseValueConvertibleTests: CipherKitTestCase {
    func testEveryStandardTypeRoundTripsThroughARealDatabase() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(i, l, d, b, s, blob, data, date, maybe)")
        let connection = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"), mode: .readWrite)).connection
        let date = Date(timeIntervalSince1970: 1_700_000_000.125)
        let values: [DatabaseValueConvertible] = [42, Int64.max, 2.5, true, "héllo, \"world\"", [UInt8]([0, 1, 255]), Data([9, 8]), date, String?.none]
        let insert = try connection.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        try insert.bind(values.map(\.databaseValue))
        try insert.step()
        let select = try connection.prepare("SELECT * FROM t")
        XCTAssertTrue(try select.step())
        let row = select.currentRow()
        XCTAssertEqual(try row.get(0, as: Int.self), 42)
        XCTAssertEqual(try row.get("l", as: Int64.self), Int64.max)
        XCTAssertEqual(try row.get("d", as: Double.self), 2.5)
        XCTAssertEqual(try row.get("b", as: Bool.self), true)
        XCTAssertEqual(try row.get("s", as: String.self), "héllo, \"world\"")
        XCTAssertEqual(try row.get("blob", as: [UInt8].self), [0, 1, 255])
        XCTAssertEqual(try row.get("data", as: Data.self), Data([9, 8]))
        XCTAssertEqual(try row.get("date", as: Date.self).timeIntervalSince1970, date.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertEqual(row["date"], .text("2023-11-14T22:13:20.125Z"))
        XCTAssertNil(try row.get("maybe", as: String?.self))
        XCTAssertEqual(try row.get("i", as: Int?.self), 42)
    }

    func testConversionThatDoesNotFitThrowsAndNamesValueAndColumn() {
        let row = Row(columns: ["n"], values: [.text("abc")])
        XCTAssertThrowsError(try row.get("n", as: Int.self)) { error in
            XCTAssertEqual("\(error)", "could not decode Int from database value 'abc' in column 'n'")
        }
        XCTAssertEqual("\(ValueConversionError(type: "Int", value: .text("abc")))", "could not decode Int from database value 'abc'")
        XCTAssertThrowsError(try Bool.fromDatabaseValue(.integer(2)))
        XCTAssertThrowsError(try Int.fromDatabaseValue(.real(1.5)))
        XCTAssertEqual(try Int.fromDatabaseValue(.real(3.0)), 3)
        XCTAssertThrowsError(try String.fromDatabaseValue(.integer(1)))
        XCTAssertThrowsError(try Date.fromDatabaseValue(.text("yesterday")))
        XCTAssertThrowsError(try Int.fromDatabaseValue(.null))
    }

    func testRowDecodesIntoADecodableType() throws {
        struct User: Decodable, Equatable {
            let id: Int
            let name: String
            let score: Double?
            let active: Bool
        }
        let row = Row(columns: ["id", "NAME", "score", "active"], values: [.integer(7), .text("ada"), .null, .integer(1)])
        XCTAssertEqual(try row.decode(User.self), User(id: 7, name: "ada", score: nil, active: true))
        let missing = Row(columns: ["id"], values: [.integer(7)])
        XCTAssertThrowsError(try missing.decode(User.self))
        let wrong = Row(columns: ["id", "name", "score", "active"], values: [.text("x"), .text("ada"), .null, .integer(1)])
        XCTAssertThrowsError(try wrong.decode(User.self)) { error in
            XCTAssertEqual("\(error)", "could not decode Int from database value 'x' in column 'id'")
        }
    }

    func testCommandLineValuesParseWithAndWithoutTypes() throws {
        XCTAssertEqual(try DatabaseValue(parsing: "42"), .integer(42))
        XCTAssertEqual(try DatabaseValue(parsing: "-1.5"), .real(-1.5))
        XCTAssertEqual(try DatabaseValue(parsing: "007"), .text("007"))
        XCTAssertEqual(try DatabaseValue(parsing: "1.50"), .text("1.50"))
        XCTAssertEqual(try DatabaseValue(parsing: "99999999999999999999"), .text("99999999999999999999"))
        XCTAssertEqual(try DatabaseValue(parsing: "-9223372036854775808"), .integer(.min))
        XCTAssertEqual(try DatabaseValue(parsing: "0.1"), .real(0.1))
        XCTAssertEqual(try DatabaseValue(parsing: "1.0e+20"), .real(1e20))
        XCTAssertEqual(try DatabaseValue(parsing: "1e+20"), .text("1e+20"))
        XCTAssertEqual(try DatabaseValue(parsing: "0.30000000000000004"), .text("0.30000000000000004"))
        XCTAssertEqual(try DatabaseValue(parsing: "text:007"), .text("007"))
        XCTAssertEqual(try DatabaseValue(parsing: "int:42"), .integer(42))
        XCTAssertEqual(try DatabaseValue(parsing: "real:1"), .real(1))
        XCTAssertEqual(try DatabaseValue(parsing: "blob:DEADbeef"), .blob([0xDE, 0xAD, 0xBE, 0xEF]))
        XCTAssertEqual(try DatabaseValue(parsing: "null"), .null)
        XCTAssertEqual(try DatabaseValue(parsing: "text:null"), .text("null"))
        XCTAssertEqual(try DatabaseValue(parsing: "nan"), .text("nan"))
        XCTAssertEqual(try DatabaseValue(parsing: "12:30"), .text("12:30"))
        XCTAssertEqual(try DatabaseValue(parsing: ""), .text(""))
        XCTAssertThrowsError(try DatabaseValue(parsing: "int:4.2"))
        XCTAssertThrowsError(try DatabaseValue(parsing: "blob:ABC"))
        XCTAssertThrowsError(try DatabaseValue(parsing: "blob:0xff"))
        XCTAssertThrowsError(try DatabaseValue(parsing: "real:nan"), "SQLite would store NULL")
        XCTAssertEqual(try DatabaseValue(parsing: "real:inf"), .real(.infinity))
    }

    /// Over seeded strings of digits, signs, points and exponents: an untyped value that
    /// parses as a number is one SQLite writes back as the text given (its TEXT conversion,
    /// as a TEXT column stores it), so none loses a digit; SQLite's own spellings stay numbers.
    func testAnUntypedValueIsANumberOnlyWhenItsTextComesBackTheSame() throws {
        let (generator, seed) = SeededGenerator.forSweep("untyped value sweep", variable: "CIPHERCTL_UNTYPED_SEED")
        var random = generator
        let connection = try Connection(path: ":memory:", mode: .create)
        for text in ["12", "-3.25", "1.0e+20", "0.1"] {
            XCTAssertNotEqual(try DatabaseValue(parsing: text), .text(text), text)
        }
        let alphabet = Array("0123456789-+.eE")
        for _ in 0..<sweepCases("CIPHERCTL_UNTYPED_CASES", quick: 20_000) {
            let text = String((0..<Int.random(in: 1...22, using: &random)).map { _ in
                Int.random(in: 0..<3, using: &random) == 0 ? alphabet.randomElement(using: &random)! : alphabet[Int.random(in: 0..<10, using: &random)]
            })
            let value = try DatabaseValue(parsing: text)
            switch value {
            case .integer, .real:
                XCTAssertEqual(try connection.scalar("SELECT CAST(? AS TEXT)", arguments: [value])?.textValue, text, "seed \(seed)")
            case .text(let parsed): XCTAssertEqual(parsed, text, "seed \(seed)")
            default: XCTFail("seed \(seed): \(text) is neither a number nor text")
            }
        }
        try connection.close()
    }
}
