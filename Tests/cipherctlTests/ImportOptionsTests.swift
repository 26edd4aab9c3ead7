@testable import cipherctl
import CipherKit
import XCTest

/// `import`'s command line read once into `ImportOptions`.
final class ImportOptionsTests: XCTestCase {
    private func options(_ arguments: [String]) throws -> ImportOptions {
        try ImportOptions(CommandLineParser.parse(arguments, for: CommandCatalog.importRows))
    }

    func testTheFormatComesFromTheFileNameAndTheConflictFromItsFlag() throws {
        let read = try options(["db", "t", "rows.ndjson", "--ignore", "--pk", "id", "--batch-size", "10", "--alter"])
        XCTAssertEqual(read.file, "rows.ndjson")
        XCTAssertEqual(read.format, .jsonl)
        XCTAssertEqual(read.conflict, .ignore)
        XCTAssertEqual(read.primaryKey, "id")
        XCTAssertEqual(read.batchSize, 10)
        XCTAssertTrue(read.alter)
        let piped = try options(["db", "t", "-", "--format", "CSV"])
        XCTAssertNil(piped.file)
        XCTAssertEqual(piped.format, .csv)
        XCTAssertNil(piped.batchSize)
        XCTAssertEqual(piped.conflict, .fail)
    }

    func testOptionsThatExcludeEachOtherAreUsageErrorsBeforeAnyInputIsOpened() {
        XCTAssertThrowsError(try options(["db", "t", "missing.csv", "--replace", "--ignore"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--replace and --ignore cannot be given together")
        }
        XCTAssertThrowsError(try options(["db", "t", "missing.csv", "--batch-size", "0"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "--batch-size needs a whole number from 1 to 1000000")
        }
    }
}
