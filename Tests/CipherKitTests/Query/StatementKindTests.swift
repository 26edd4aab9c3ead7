@testable import CipherKit
import XCTest

/// How `query` classes statements: each spelling of a maintenance statement, with comments,
/// case, schema names and quotes, lands in its class; everything else is ordinary.
final class StatementKindTests: XCTestCase {
    func testEverySpellingOfAMaintenanceStatementIsClassedByItsMeaning() {
        let cases: [(String, StatementKind)] = [
            ("VACUUM", .outsideTransaction),
            ("  -- tidy up\n vacuum main", .outsideTransaction),
            ("/* copy */ VACUUM INTO 'copy.db'", .outsideTransaction),
            ("PRAGMA journal_mode = WAL", .outsideTransaction),
            ("pragma main.journal_mode=delete", .outsideTransaction),
            ("PRAGMA \"main\".journal_mode(WAL)", .outsideTransaction),
            ("PRAGMA wal_checkpoint", .outsideTransaction),
            ("PRAGMA wal_checkpoint(TRUNCATE)", .outsideTransaction),
            ("PRAGMA journal_mode", .readOnlyPragma),
            ("PRAGMA journal_mode;", .readOnlyPragma),
            ("PRAGMA main.user_version", .readOnlyPragma),
            ("PRAGMA table_info(items)", .readOnlyPragma),
            ("PRAGMA main.table_xinfo([odd name])", .readOnlyPragma),
            ("PRAGMA integrity_check(10)", .readOnlyPragma),
            ("PRAGMA foreign_key_check", .readOnlyPragma),
            ("PRAGMA user_version = 5", .settingPragma),
            ("PRAGMA user_version(5)", .settingPragma),
            ("PRAGMA incremental_vacuum", .settingPragma),
            ("PRAGMA optimize", .settingPragma),
            ("BEGIN TRANSACTION", .transactionStart),
            ("begin immediate", .transactionStart),
            ("COMMIT", .transactionEnd),
            ("END TRANSACTION", .transactionEnd),
            ("SELECT 'VACUUM'", .ordinary),
            ("-- VACUUM\nSELECT 1", .ordinary),
            ("INSERT INTO vacuum VALUES (1)", .ordinary),
        ]
        for (sql, kind) in cases {
            XCTAssertEqual(StatementKind(sql: sql), kind, sql)
        }
    }

    func testStatementsSplitWhereSQLiteSaysOneIsWhole() {
        let script = """
            CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES (';'); END;
            SELECT 'a;b'; -- a comment; with a semicolon
            /* ; */ VACUUM
            """
        let statements = SQLText.statements(script)
        XCTAssertEqual(statements.count, 3, "\(statements)")
        XCTAssertEqual(statements.map { StatementKind(sql: $0) }, [.ordinary, .ordinary, .outsideTransaction])
        XCTAssertEqual(SQLText.statements("  ;; -- nothing\n"), [])
    }
}
