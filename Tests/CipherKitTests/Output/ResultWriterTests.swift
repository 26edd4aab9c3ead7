import CipherKit
import XCTest

/// Every format over every storage class and awkward text, through a real statement.
final class ResultWriterTests: CipherKitTestCase {
    private let sql = """
        SELECT 1 AS i, 0.5 AS r, 'a,b "q"' AS t, NULL AS n, x'00ff' AS b
        UNION ALL SELECT -2, 1e20, 'tab\tline
        end|', NULL, x'' ;
        """

    private func render(_ format: ResultFormat, options: ResultOptions? = nil) throws -> String {
        let target = try makeEncryptedDatabase("a.db", key: "k")
        let connection = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"))).connection
        var collected: [UInt8] = []
        let output = OutputBuffer(capacity: 8) { collected.append(contentsOf: $0) }
        let writer = format.makeWriter(output: output, options: options ?? ResultOptions(nullText: "NULL", blobEncoding: format.defaultBlobEncoding))
        let statement = try connection.prepare(sql)
        try writer.begin(columns: statement.columnNames)
        _ = try writer.writeRows(of: statement)
        try writer.end()
        try writer.finish()
        try FileManager.default.removeItem(atPath: target)
        return String(decoding: collected, as: UTF8.self)
    }

    func testCSVQuotesLikeTheShell() throws {
        XCTAssertEqual(try render(.csv), "i,r,t,n,b\r\n1,0.5,\"a,b \"\"q\"\"\",NULL,\"\u{0}\u{FFFD}\"\r\n-2,1.0e+20,\"tab\tline\nend|\",NULL,\"\"\r\n")
    }

    func testIntegersRenderAsDecimalAtEveryMagnitude() throws {
        let target = try makeEncryptedDatabase("n.db", key: "k")
        let connection = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("k"))).connection
        let values: [Int64] = [0, 7, -7, 10, -10, 1_000_000, 9_007_199_254_740_993, .max, .min]
        var collected: [UInt8] = []
        let output = OutputBuffer(capacity: 8) { collected.append(contentsOf: $0) }
        let writer = ResultFormat.value.makeWriter(output: output, options: ResultOptions(blobEncoding: .raw))
        let statement = try connection.prepare(values.map { "SELECT \($0 == .min ? "-9223372036854775807 - 1" : String($0))" }.joined(separator: " UNION ALL "))
        try writer.begin(columns: statement.columnNames)
        _ = try writer.writeRows(of: statement)
        try writer.end()
        try writer.finish()
        XCTAssertEqual(String(decoding: collected, as: UTF8.self), values.map { String($0) + "\n" }.joined())
    }

    func testTSVEscapesSeparatorsAndHeaderCanBeLeftOut() throws {
        let options = ResultOptions(header: false, nullText: "\\N", blobEncoding: .hex)
        XCTAssertEqual(try render(.tsv, options: options), "1\t0.5\ta,b \"q\"\t\\N\t00ff\n-2\t1.0e+20\ttab\\tline\\nend|\t\\N\t\n")
    }

    func testJSONHasRealTypesAndBlobsSayWhatTheyAre() throws {
        XCTAssertEqual(try render(.json), """
            [
            {"i":1,"r":0.5,"t":"a,b \\"q\\"","n":null,"b":{"$base64":true,"encoded":"AP8="}},
            {"i":-2,"r":1.0e+20,"t":"tab\\tline\\nend|","n":null,"b":{"$base64":true,"encoded":""}}
            ]

            """)
        XCTAssertEqual(try render(.jsonl).split(separator: "\n").count, 2)
        let plain = try render(.jsonl, options: ResultOptions(blobEncoding: .base64))
        XCTAssertTrue(plain.hasPrefix(#"{"i":1,"r":0.5,"t":"a,b \"q\"","n":null,"b":"AP8="}"#), plain)
    }

    func testMarkdownLineValueAndTable() throws {
        XCTAssertEqual(try render(.markdown), """
            | i | r | t | n | b |
            | --- | --- | --- | --- | --- |
            | 1 | 0.5 | a,b "q" | NULL | 00ff |
            | -2 | 1.0e+20 | tab\tline<br>end\\| | NULL |  |

            """)
        XCTAssertEqual(try render(.line), "i = 1\nr = 0.5\nt = a,b \"q\"\nn = NULL\nb = 00ff\n\ni = -2\nr = 1.0e+20\nt = tab\tline\nend|\nn = NULL\nb = \n")
        XCTAssertEqual(try render(.value), "1\n-2\n")
        XCTAssertEqual(try render(.table), """
            +----+---------+-----------------+------+------+
            | i  | r       | t               | n    | b    |
            +----+---------+-----------------+------+------+
            |  1 |     0.5 | a,b "q"         | NULL | 00ff |
            | -2 | 1.0e+20 | tab\\tline\\nend| | NULL |      |
            +----+---------+-----------------+------+------+

            """)
    }
}
