import Foundation
import TestSupport
import XCTest

/// Databases SQLCipher wrote under its deprecated `PRAGMA cipher_hmac_salt_mask`: the key
/// finds the mask (or `--hmac-salt-mask` names it), a rekey keeps it, an export writes the
/// destination's settings (0x3a, unless `--to-compat same`), and files under different masks
/// share one run, though SQLCipher holds a single mask per process. The oracle is the shell,
/// told the mask; SQLCipher 3 files are written by SQLCipher 3.4.1 too, where it is installed.
final class HMACSaltMaskTests: CLITestCase {
    private func maskSQL(_ key: String, _ mask: UInt8, compat: Int) -> String {
        "PRAGMA key = '\(key)'; PRAGMA cipher_compatibility = \(compat); PRAGMA cipher_hmac_salt_mask = \"x'\(String(format: "%02x", mask))'\";"
    }

    /// The shell's checksum, without the deprecation notice it answers the pragma with.
    private func checksum(_ db: String, _ keySQL: String) throws -> String? {
        try contentChecksum(db, keySQL: keySQL).map { $0.split(separator: "\n").filter { !$0.contains("deprecated") }.joined(separator: "\n") }
    }

    private func randomMask(_ generator: inout SeededGenerator) -> UInt8 {
        var mask = UInt8.random(in: 0...255, using: &generator)
        if mask == 0x3a { mask = 0x5b }
        return mask
    }

    func testADatabaseUnderAnyHMACSaltMaskIsFoundByItsKeyAndEachCommandWritesTheMaskItDocuments() throws {
        var (generator, seed) = SeededGenerator.forSweep("hmac salt mask", variable: "CIPHERCTL_SALT_MASK_SEED")
        let modes: [[String]] = [[], ["--in-place"], ["--low-space"]]
        let oracle = FileManager.default.isExecutableFile(atPath: Self.legacyCipherOracleRoot + "/usr/bin/sqlcipher")
        for index in 0..<sweepCases("CIPHERCTL_SALT_MASK_CASES", quick: 3) {
            let mask = randomMask(&generator), compat = Bool.random(using: &generator) ? 3 : 4
            let mode = modes[index % modes.count]
            let hex = String(format: "%02x", mask)
            // SQLCipher 3's files written by SQLCipher 3.4.1 itself, where it is installed, now and then.
            let by341 = compat == 3 && oracle && Bool.random(using: &generator)
            let context = "seed \(seed) case \(index): mask \(hex), SQLCipher \(compat)\(by341 ? " by 3.4.1" : ""), rekey \(mode)"
            let extra = "PRAGMA cipher_compatibility = \(compat); PRAGMA cipher_hmac_salt_mask = \"x'\(hex)'\";"
            let db = by341 ? try make341("m\(index).db", hex: hex) : try makeShellDatabase("m\(index).db", key: "salt", rows: 200, extraSQL: extra)
            let before = try XCTUnwrap(checksum(db, maskSQL("salt", mask, compat: compat)), context)
            XCTAssertNil(try checksum(db, "PRAGMA key = 'salt'; PRAGMA cipher_compatibility = \(compat);"), context)
            let keys = ["K": "salt", "N": "new salt"]
            // Found with the key alone, and named in the profile.
            let opened = try cipherctl(["open", db, "--key-env", "K", "--check", "--json"], environment: keys)
            XCTAssertEqual(opened.code, 0, "\(context): \(opened.stderr)")
            let profile = try jsonObject(opened.stdout)
            XCTAssertEqual((profile["cipher"] as? [String: Any])?["hmac_salt_mask"] as? String, hex, context)
            // The format the mask sits beside is named, as for any file of that version.
            XCTAssertEqual(profile["format_detected"] as? Bool, true, context)
            XCTAssertEqual(profile["format_version"] as? Int, compat, context)
            let given = try cipherctl(["open", db, "--key-env", "K", "--compat", "\(compat)", "--json"], environment: keys)
            XCTAssertEqual(given.code, 0, "\(context): \(given.stderr)")
            XCTAssertEqual(try jsonObject(given.stdout)["format_version"] as? Int, compat, "\(context): --compat given")
            let counted = try cipherctl(["query", db, "--key-env", "K", "--hmac-salt-mask", hex, "SELECT count(*) FROM items"], environment: keys)
            XCTAssertEqual(counted.stdout.split(whereSeparator: \.isNewline).last, "200", "\(context): \(counted.stderr)")
            // An export to SQLCipher 4's defaults leaves the deprecated mask behind; `same` keeps it.
            let plain = path("plain\(index).db"), same = path("same\(index).db")
            let exported = try cipherctl(["export", db, plain, "--key-env", "K", "--to-key-env", "N"], environment: keys)
            XCTAssertEqual(exported.code, 0, "\(context): \(exported.stderr)")
            XCTAssertEqual(try checksum(plain, "PRAGMA key = 'new salt';"), before, context)
            let kept = try cipherctl(["export", db, same, "--key-env", "K", "--to-key-env", "N", "--to-compat", "same"], environment: keys)
            XCTAssertEqual(kept.code, 0, "\(context): \(kept.stderr)")
            XCTAssertEqual(try checksum(same, maskSQL("new salt", mask, compat: compat)), before, context)
            // A rekey keeps every setting, the mask with them.
            let rekeyed = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "N"] + mode, environment: keys)
            XCTAssertEqual(rekeyed.code, 0, "\(context): \(rekeyed.stderr)")
            XCTAssertEqual(try checksum(db, maskSQL("new salt", mask, compat: compat)), before, context)
            XCTAssertNil(try checksum(db, maskSQL("salt", mask, compat: compat)), context)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("m\(index).db") && $0 != "m\(index).db" }
            XCTAssertEqual(leftovers, [], context)
        }
    }

    /// 200 rows in `items` under key 'salt' and mask `hex`, written by SQLCipher 3.4.1.
    private func make341(_ name: String, hex: String) throws -> String {
        let db = path(name)
        let made = try legacyCipherOracle(db, ["""
            PRAGMA key = 'salt'; PRAGMA cipher_hmac_salt_mask = "x'\(hex)'";
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, payload BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO items(name, payload) SELECT 'item ' || i, zeroblob(i * 13 % 700) FROM n;
            """])
        XCTAssertEqual(made.code, 0, made.stderr)
        return db
    }

    func testFilesUnderDifferentMasksRotateInOneParallelBatchEachUnderItsOwn() throws {
        var (generator, seed) = SeededGenerator.forSweep("hmac salt mask batch", variable: "CIPHERCTL_SALT_MASK_SEED")
        let count = sweepCases("CIPHERCTL_SALT_MASK_CASES", quick: 8)
        var masks: [UInt8] = []
        var files: [String] = []
        for index in 0..<count {
            let mask = index % 3 == 0 ? 0x3a : randomMask(&generator)
            masks.append(mask)
            files.append(try makeShellDatabase("b\(index).db", key: "salt", rows: 20 + index, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'\(String(format: "%02x", mask))'\";"))
        }
        let before = try files.indices.map { try checksum(files[$0], maskSQL("salt", masks[$0], compat: 4)) }
        let keys = ["K": "salt", "N": "new salt"]
        for mode in [["--jobs", "2"], ["--jobs", "2", "--in-place"]] {
            let (old, new) = mode.count == 2 ? ("K", "N") : ("N", "K")
            let rotated = try cipherctl(["rekey"] + files + ["--key-env", old, "--new-key-env", new] + mode, environment: keys)
            XCTAssertEqual(rotated.code, 0, "seed \(seed) \(mode): \(rotated.stderr)")
            let key = new == "N" ? "new salt" : "salt"
            for index in files.indices {
                XCTAssertEqual(try checksum(files[index], maskSQL(key, masks[index], compat: 4)), before[index], "seed \(seed) \(mode) file \(index)")
            }
        }
        let audited = try cipherctl(["audit"] + files + ["--key-env", "K", "--jobs", "2", "--json"], environment: keys)
        XCTAssertEqual(audited.code, 0, "seed \(seed): \(audited.stderr)")
        let reports = try audited.stdout.split(separator: "\n").map { try jsonObject(String($0)) }.filter { $0["path"] != nil }
        XCTAssertEqual(reports.count, files.count, audited.stdout)
        for report in reports {
            let name = try XCTUnwrap(report["path"] as? String)
            let index = try XCTUnwrap(files.firstIndex(of: name))
            XCTAssertEqual((report["cipher"] as? [String: Any])?["hmac_salt_mask"] as? String, String(format: "%02x", masks[index]), "seed \(seed) \(name)")
        }
    }

    /// The rotation record carries the mask: a low-space rotation killed at any of its first
    /// writes is finished by the same command, which finds the mask in the record.
    func testALowSpaceRotationOfAMaskedFileKilledAtEachWriteIsFinishedUnderItsMask() throws {
        try requireStrace()
        let original = try makeShellDatabase("k.db", key: "salt", rows: 400, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'c4'\";")
        let before = try XCTUnwrap(checksum(original, maskSQL("salt", 0xc4, compat: 4)))
        let keys = ["K": "salt", "N": "new salt"]
        let arguments = ["--key-env", "K", "--new-key-env", "N", "--low-space"]
        // Each write in turn, until a run has fewer writes than the count and ends by itself.
        for call in 1...64 {
            let db = path("k\(call).db")
            try FileManager.default.copyItem(atPath: original, toPath: db)
            let killed = try run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=pwrite64:signal=KILL:when=\(call)", Self.binary, "rekey", db] + arguments,
                                 stdin: nil, environment: tracedEnvironment(keys))
            guard killed.signaled else {
                XCTAssertEqual(killed.code, 0, "write \(call): \(killed.stderr)")
                XCTAssertGreaterThan(call, 3, "the run wrote too few pages to be killed between them")
                XCTAssertEqual(try checksum(db, maskSQL("new salt", 0xc4, compat: 4)), before, "write \(call)")
                return
            }
            let finished = try cipherctl(["rekey", db] + arguments, environment: keys)
            XCTAssertEqual(finished.code, 0, "write \(call): \(finished.stderr)")
            XCTAssertEqual(try checksum(db, maskSQL("new salt", 0xc4, compat: 4)), before, "write \(call)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db + ".cipherctl-rotation"), "write \(call)")
        }
        XCTFail("the run was still killed at its 64th write")
    }

    /// Damage anywhere in a masked file, page 1 included (the mask is then found on page 2),
    /// is exit 4 naming the page, never a wrong key; but for page 1's salt and first cipher
    /// block, which no file can tell from a wrong key (docs/formats.md).
    func testADamagedPageOfAMaskedFileIsExit4NamingThePage() throws {
        var (generator, seed) = SeededGenerator.forSweep("hmac salt mask damage", variable: "CIPHERCTL_SALT_MASK_SEED")
        let original = try makeShellDatabase("d.db", key: "salt", rows: 300, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'e1'\";")
        let pages = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: original)[.size] as? Int) / 4096
        for index in 0..<sweepCases("CIPHERCTL_SALT_MASK_CASES", quick: 4) {
            let page = index == 0 ? 1 : Int.random(in: 1...pages, using: &generator)
            let offset = (page - 1) * 4096 + Int.random(in: (page == 1 ? 32 : 0)..<4096, using: &generator)
            let db = path("d\(index).db")
            try FileManager.default.copyItem(atPath: original, toPath: db)
            let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: db))
            try handle.seek(toOffset: UInt64(offset))
            let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
            try handle.seek(toOffset: UInt64(offset))
            handle.write(Data([byte ^ 0x10]))
            try handle.close()
            let checked = try cipherctl(["open", db, "--key-env", "K", "--check"], environment: ["K": "salt"])
            let context = "seed \(seed) case \(index): byte \(offset) of page \(page)"
            XCTAssertEqual(checked.code, 4, "\(context): \(checked.stderr)")
            XCTAssertTrue(checked.stdout.contains("page \(page) ") || checked.stderr.contains("page \(page) "), "\(context): \(checked.stdout) \(checked.stderr)")
        }
    }

    /// A mask beside other settings than a known format's (as a rekey to a new KDF count or
    /// page size writes) is found once the settings search has found the rest. FIPS mode
    /// searches no settings, and no mask.
    func testAMaskBesideSearchedSettingsIsFoundAndFIPSModeSearchesNone() throws {
        let keys = ["K": "salt", "N": "new salt"]
        for (index, change) in [["--new-kdf-iter", "64000"], ["--new-page-size", "1024"], ["--new-hmac-algorithm", "SHA256"]].enumerated() {
            let db = try makeShellDatabase("s\(index).db", key: "salt", rows: 50, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'9c'\";")
            let rekeyed = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "N"] + change, environment: keys)
            XCTAssertEqual(rekeyed.code, 0, "\(change): \(rekeyed.stderr)")
            let opened = try cipherctl(["open", db, "--key-env", "N", "--json"], environment: keys)
            XCTAssertEqual(opened.code, 0, "\(change): \(opened.stderr)")
            XCTAssertEqual((try jsonObject(opened.stdout)["cipher"] as? [String: Any])?["hmac_salt_mask"] as? String, "9c", "\(change)")
        }
        let db = try makeShellDatabase("f.db", key: "salt", rows: 5, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'9c'\";")
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "K", "--fips"], environment: keys).code, 3)
    }

    /// A migration with the same key (`--new-compat`, the file's own version too) writes the
    /// version's defaults, mask 0x3a among them, so the plain shell opens the file; a second
    /// run finds it done.
    func testAMigrationWithTheSameKeyWritesTheDefaultMaskAndASecondRunFindsItDone() throws {
        let keys = ["K": "salt"]
        for compat in [3, 4] {
            let extra = "PRAGMA cipher_compatibility = \(compat); PRAGMA cipher_hmac_salt_mask = \"x'77'\";"
            let db = try makeShellDatabase("c\(compat).db", key: "salt", rows: 30, extraSQL: extra)
            let before = try XCTUnwrap(checksum(db, maskSQL("salt", 0x77, compat: compat)))
            for run in 0..<2 {
                let migrated = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "K", "--new-compat", "\(compat)", "--json"], environment: keys)
                XCTAssertEqual(migrated.code, 0, "SQLCipher \(compat) run \(run): \(migrated.stderr)")
                XCTAssertEqual(try jsonObject(migrated.stdout)["action"] as? String, run == 0 ? "export-and-replace" : "already-done", "SQLCipher \(compat) run \(run)")
                XCTAssertEqual(try checksum(db, "PRAGMA key = 'salt'; PRAGMA cipher_compatibility = \(compat);"), before, "SQLCipher \(compat) run \(run)")
            }
        }
    }

    /// A right key under a wrongly named mask (or the default one named on a masked file) is
    /// exit 3 naming the mask the key opens it under, with or without the format given.
    func testARightKeyUnderAWronglyNamedMaskIsExit3NamingTheMaskThatOpensIt() throws {
        var (generator, seed) = SeededGenerator.forSweep("hmac salt mask named wrongly", variable: "CIPHERCTL_SALT_MASK_SEED")
        let keys = ["K": "salt"]
        for index in 0..<sweepCases("CIPHERCTL_SALT_MASK_CASES", quick: 3) {
            let actual: UInt8 = index == 0 ? 0x3a : randomMask(&generator)
            var given = randomMask(&generator)
            if given == actual { given = given &+ 1 == 0x3a ? given &+ 2 : given &+ 1 }
            if index == 1 { given = 0x3a }
            let compat = Bool.random(using: &generator) ? 3 : 4
            let extra = "PRAGMA cipher_compatibility = \(compat); PRAGMA cipher_hmac_salt_mask = \"x'\(String(format: "%02x", actual))'\";"
            let db = try makeShellDatabase("n\(index).db", key: "salt", rows: 20, extraSQL: extra)
            let format: [String] = Bool.random(using: &generator) ? ["--compat", "\(compat)"] : []
            let args = ["open", db, "--key-env", "K", "--hmac-salt-mask", String(format: "%02x", given)] + format
            let context = "seed \(seed) case \(index): file's mask \(actual), given \(given), SQLCipher \(compat) \(format)"
            let refused = try cipherctl(args, environment: keys)
            XCTAssertEqual(refused.code, 3, "\(context): \(refused.stderr)")
            let lines = refused.stderr.split(separator: "\n")
            XCTAssertEqual(lines.first.map(String.init), "cipherctl: error: cannot decrypt '\(db)': the key opens it under HMAC salt mask 0x\(String(format: "%02x", actual)), not 0x\(String(format: "%02x", given)) as given", context)
            XCTAssertTrue(refused.stderr.contains("--hmac-salt-mask \(String(format: "%02x", actual))"), "\(context): \(refused.stderr)")
        }
    }

    func testAWrongMaskOrKeyIsExit3AndAMaskThatIsNotOneHexByteIsAUsageError() throws {
        let db = try makeShellDatabase("w.db", key: "salt", rows: 10, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'5b'\";")
        let keys = ["K": "salt", "W": "wrong"]
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "K", "--hmac-salt-mask", "11"], environment: keys).code, 3)
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "W"], environment: keys).code, 3)
        XCTAssertEqual(try cipherctl(["open", db, "--key-env", "K", "--hmac-salt-mask", "0x5B"], environment: keys).code, 0)
        for bad in ["3", "zz", "123", "0x", ""] {
            let refused = try cipherctl(["open", db, "--key-env", "K", "--hmac-salt-mask", bad], environment: keys)
            XCTAssertEqual(refused.code, 2, "\(bad): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.hasPrefix("cipherctl: error: "), refused.stderr)
        }
    }
}
