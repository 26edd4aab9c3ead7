import Foundation
import XCTest

/// A SQLCipher 1 to 3 file under a `PRAGMA cipher` (AES-256-CBC or another), as the oracle
/// below writes it.
struct LegacyCipherSource: CustomStringConvertible {
    var cipher = "aes-128-cbc", version = 3, pageSize = 1024, rows = 3, key = "legacy key", salt: UInt64 = 1
    /// SQLCipher 2.0 on a big-endian machine: the HMAC's page numbers big-endian.
    var bigEndian = false
    /// `PRAGMA cipher_hmac_salt_mask`, deprecated: 0x3a unless another was set.
    var mask: UInt8 = 0x3a
    var description: String {
        "\(cipher) SQLCipher \(version)\(bigEndian ? " big-endian" : "") mask \(String(format: "%02x", mask)) page size \(pageSize) rows \(rows) key \(key)"
    }
    /// The statements that key a connection as SQLCipher `version` under `cipher`.
    var keySQL: String {
        let versioned = version == 3 ? "" : version == 2 ? "PRAGMA kdf_iter = 4000;" : "PRAGMA kdf_iter = 4000; PRAGMA cipher_use_hmac = OFF;"
        let order = bigEndian ? " PRAGMA cipher_hmac_pgno = be;" : ""
        let masked = mask == 0x3a ? "" : " PRAGMA cipher_hmac_salt_mask = \"x'\(String(format: "%02x", mask))'\";"
        return "PRAGMA key = '\(key)'; PRAGMA cipher = '\(cipher)'; \(versioned)\(order)\(masked) PRAGMA cipher_page_size = \(pageSize);"
    }
}

/// Debian's SQLCipher 3.4.1, unpacked by `Scripts/bootstrap --test-tools` into
/// .build-interop/sqlcipher3: the oracle that writes files under other ciphers and reads them.
extension CLITestCase {
    static let legacyCipherOracleRoot = CLITestCase.packageRoot.appendingPathComponent(".build-interop/sqlcipher3").path

    func requireLegacyCipherOracle() throws {
        try requireTestTool(FileManager.default.isExecutableFile(atPath: Self.legacyCipherOracleRoot + "/usr/bin/sqlcipher"),
                            "run Scripts/bootstrap --test-tools (SQLCipher 3.4.1 in .build-interop/sqlcipher3)")
    }

    /// The 3.4.1 shell run on `database` with `arguments` (SQL, or dot-commands), in order.
    func legacyCipherOracle(_ database: String, _ arguments: [String]) throws -> CommandResult {
        try run(Self.legacyCipherOracleRoot + "/usr/bin/sqlcipher", [database] + arguments, stdin: nil,
                environment: ["LD_LIBRARY_PATH": Self.legacyCipherOracleRoot + "/usr/lib/x86_64-linux-gnu"])
    }

    /// Writes `source` with SQLCipher 3.4.1: rows of text and blobs of many lengths, some
    /// longer than a page, and an index.
    func makeLegacyCipherFile(_ path: String, _ source: LegacyCipherSource) throws {
        let fill = """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a, b); CREATE INDEX tb ON t(b);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(source.rows))
            INSERT INTO t(a, b) SELECT CASE x % 3 WHEN 0 THEN zeroblob((x * \(source.salt)) % 3000) WHEN 1 THEN x * 1.5 ELSE 'text ' || x END,
              replace(hex(zeroblob((x * 37 + \(source.salt)) % 1500)), '00', char(65 + (x + \(source.salt)) % 26)) FROM c;
            """
        let made = try legacyCipherOracle(path, [source.keySQL + fill])
        XCTAssertEqual(made.code, 0, "\(source): \(made.stderr)")
    }
}
