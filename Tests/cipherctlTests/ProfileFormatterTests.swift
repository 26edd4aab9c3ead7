@testable import cipherctl
import CipherKit
import Foundation
import XCTest

final class ProfileFormatterTests: CLITestCase {
    func testJSONProfileHasTheDocumentedFieldsAndParses() throws {
        let target = path("a.db")
        _ = try sqlcipherOK(target, "PRAGMA key = 'k'; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try KeyMaterial.passphrase(Array("k".utf8))), options: InspectOptions(countRows: true, checkIntegrity: true))
        let text = ProfileFormatter.json(profile).rendered()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        for field in ["path", "file_size", "encrypted", "format", "format_version", "format_detected", "format_attempts", "cipher", "page_size", "page_count", "freelist_count", "journal_mode",
                      "encoding", "auto_vacuum", "user_version", "application_id", "tables", "indexes", "views", "triggers", "row_counts", "integrity"] {
            XCTAssertNotNil(object[field], field)
        }
        let cipher = try XCTUnwrap(object["cipher"] as? [String: Any])
        XCTAssertEqual(Set(cipher.keys), ["compatibility", "page_size", "kdf_iter", "hmac_algorithm", "kdf_algorithm", "use_hmac", "hmac_pgno", "fast_kdf_iter", "hmac_salt_mask", "plaintext_header_size", "salt"])
        XCTAssertEqual((object["row_counts"] as? [String: Int])?["t"], 1)
    }

    func testTextProfileAlignsValues() throws {
        let target = path("a.db")
        _ = try sqlcipherOK(target, "PRAGMA key = 'k'; CREATE TABLE t(x);")
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try KeyMaterial.passphrase(Array("k".utf8))))
        let lines = ProfileFormatter.text(profile).split(separator: "\n")
        let columns = Set(lines.map { line in line.distance(from: line.startIndex, to: line.firstIndex(of: ":")!) + (line.dropFirst(line.distance(from: line.startIndex, to: line.firstIndex(of: ":")!) + 1).prefix { $0 == " " }.count) })
        XCTAssertEqual(columns.count, 1)
        XCTAssertTrue(lines.contains("encrypted:        yes"))
    }
}
