@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// The JSON readers give the same rows whatever the sizes of the chunks the input arrives in
/// (a byte order mark, an escape, a surrogate pair or a number cut anywhere), and read each
/// value as the man page's VALUES section (`CommandCatalog+Manual.swift`) says: integers,
/// reals to the bit, text as its bytes, tagged blobs.
final class JSONReaderTests: XCTestCase {
    func testRowsAreTheSameForEveryChunkingOfTheInput() throws {
        let (generator, seed) = SeededGenerator.forSweep("json chunking sweep", variable: "CIPHERCTL_CHUNK_SEED")
        var random = generator
        let object = #"{"i": -9223372036854775808, "r": -0.0, "e": 1e999, "big": 18446744073709551616, "t": "a\u0000b\"\\\/\ud83c\udf89é",  "#
            + #""b": {"$base64": true, "encoded": "AP8="}, "x": {"$base64": true, "encoded": "/w==", "type": "text"}, "n": [1, {"k": null}], "f": true}"#
        let values: [ImportValue] = [
            .integer(.min), .real(-0.0), .real(.infinity), .real(18_446_744_073_709_551_616), .text(Array("a\u{0}b\"\\/🎉é".utf8)),
            .blob([0x00, 0xFF]), .text([0xFF]), .text(Array(#"[1,{"k":null}]"#.utf8)), .integer(1),
        ]
        for (format, text) in [(ImportFormat.jsonl, "\u{FEFF}" + object + "\n" + object + "\r\n"), (.json, "\u{FEFF}[\n" + object + ",\n" + object + "\n]\n")] {
            for _ in 0..<200 {
                var bytes = Array(text.utf8)[...]
                var sizes: [Int] = []
                let input: () throws -> [UInt8]? = {
                    guard !bytes.isEmpty else { return nil }
                    let size = Int.random(in: 1...max(1, bytes.count / 3), using: &random)
                    sizes.append(size)
                    defer { bytes = bytes.dropFirst(size) }
                    return Array(bytes.prefix(size))
                }
                var reader = JSONReader(input, format: format)
                var rows: [ImportRow] = []
                while let row = try reader.next() { rows.append(row) }
                let label = "seed \(seed), \(format), chunks \(sizes)"
                XCTAssertEqual(rows.map(\.line), format == .json ? [2, 3] : [1, 2], label)
                for row in rows {
                    XCTAssertEqual(row.keys, ["i", "r", "e", "big", "t", "b", "x", "n", "f"], label)
                    XCTAssertEqual(row.values.count, values.count, label)
                    for (got, wanted) in zip(row.values, values) {
                        if case .real(let a) = got, case .real(let b) = wanted {
                            XCTAssertEqual(a.bitPattern, b.bitPattern, label)
                        } else {
                            XCTAssertEqual(got, wanted, label)
                        }
                    }
                }
            }
        }
    }
}
