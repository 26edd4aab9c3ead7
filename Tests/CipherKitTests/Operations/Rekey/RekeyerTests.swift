import CipherKit
import XCTest

final class RekeyerTests: CipherKitTestCase {
    func testKeyOnlyRekeyIsAPageEngineCopyWithEveryPageProvenAndTheSaltKept() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
        let report = try Rekeyer.rekey(RekeyRequest(database: OpenRequest(path: target, key: try passphrase("old")), newKey: try passphrase("new")))
        XCTAssertEqual(report.action, .exportAndReplace)
        XCTAssertEqual(report.copyMethod, .pageEngine)
        XCTAssertEqual(report.verification?.isOK, true)
        XCTAssertEqual(report.verification?.oldKeyRejected, true)
        XCTAssertEqual(report.verification?.pagesProven, report.pages)
        XCTAssertEqual(report.oldSettings.salt, report.newSettings.salt)
        let reopened = try DatabaseOpener.open(OpenRequest(path: target, key: try passphrase("new"), mode: .readOnly))
        XCTAssertEqual(try reopened.connection.pragmaText("cipher_salt")?.lowercased(), report.oldSettings.salt.map { Hex.encode($0).lowercased() })
    }

    func testInPlaceRekeyIsVerifiedAndTheOldKeyRefused() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
        var request = RekeyRequest(database: OpenRequest(path: target, key: try passphrase("old")), newKey: try passphrase("new"))
        request.inPlace = true
        let report = try Rekeyer.rekey(request)
        XCTAssertEqual(report.action, .inPlace)
        XCTAssertEqual(report.verification?.isOK, true)
        XCTAssertEqual(report.verification?.oldKeyRejected, true)
        XCTAssertEqual(report.oldSettings.salt, report.newSettings.salt)
        XCTAssertEqual(report.snapshot.totalRows, 2)
    }

    func testSettingsChangeTakesTheExportPathAndKeepsTheSalt() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let request = RekeyRequest(
            database: OpenRequest(path: target, key: try passphrase("old")), newKey: try passphrase("new"),
            newSettings: CipherSettings(pageSize: 8192))
        let report = try Rekeyer.rekey(request)
        XCTAssertEqual(report.action, .exportAndReplace)
        XCTAssertEqual(report.newSettings.pageSize, 8192)
        XCTAssertEqual(report.newSettings.salt, report.oldSettings.salt)
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("new"), settings: CipherSettings(pageSize: 8192)))
        XCTAssertEqual(profile.cipher?.salt, report.oldSettings.salt)
    }

    func testSameKeyWithoutChangesIsRefused() throws {
        let target = try makeEncryptedDatabase("a.db", key: "same", sql: "CREATE TABLE t(x)")
        XCTAssertThrowsError(try Rekeyer.rekey(RekeyRequest(database: OpenRequest(path: target, key: try passphrase("same")), newKey: try passphrase("same")))) { error in
            guard case CipherKitError.refused? = error as? CipherKitError else { return XCTFail("\(error)") }
        }
    }

    func testCancelledTokenChangesNothing() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let token = CancellationToken()
        token.cancel()
        let before = try fingerprint(target)
        XCTAssertThrowsError(try Rekeyer.rekey(RekeyRequest(database: OpenRequest(path: target, key: try passphrase("old")), newKey: try passphrase("new")), token: token)) { error in
            XCTAssertEqual(error as? CipherKitError, .cancelled(path: target))
        }
        XCTAssertEqual(try fingerprint(target).0, before.0)
        XCTAssertNoThrow(try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("old"))))
    }

    func testADefaultBackupIsNamedBesideTheDatabaseFromTheGivenTimeAndATakenNameGetsANumber() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let time = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-11-22T00:59:59Z"))
        FileManager.default.createFile(atPath: target + ".backup-20261122T005959Z", contents: Data("taken".utf8))
        var request = RekeyRequest(database: OpenRequest(path: target, key: try passphrase("old")), newKey: try passphrase("new"))
        request.defaultBackupTime = time
        let report = try Rekeyer.rekey(request)
        XCTAssertEqual(report.backupPath, target + ".backup-20261122T005959Z-2")
        let kept = try DatabaseOpener.open(OpenRequest(path: target + ".backup-20261122T005959Z-2", key: try passphrase("old"), mode: .readOnly))
        try kept.connection.close()
        XCTAssertEqual(FileManager.default.contents(atPath: target + ".backup-20261122T005959Z"), Data("taken".utf8))
    }

    func testAVerificationThatFailsAfterTheCommitIsAFailureAfterCommitNamingTheNewKey() throws {
        let target = try makeEncryptedDatabase("a.db", key: "old", sql: "CREATE TABLE t(x);")
        var report = try Rekeyer.rekey(RekeyRequest(database: OpenRequest(path: target, key: try passphrase("old")), newKey: try passphrase("new")))
        XCTAssertNil(report.failureAfterCommit)
        report.verification?.differences = ["a difference"]
        guard case .failedAfterCommit(let path, let opensWith, let problem)? = report.failureAfterCommit else {
            return XCTFail("\(String(describing: report.failureAfterCommit))")
        }
        XCTAssertEqual(path, target)
        XCTAssertTrue(opensWith.hasPrefix("the new key ("), opensWith)
        XCTAssertTrue(problem.hasPrefix("verification: "), problem)
    }
}
