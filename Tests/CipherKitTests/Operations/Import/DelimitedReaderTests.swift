@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// The csv and tsv readers give the same records whatever the sizes of the chunks the input
/// arrives in: a sweep of chunkings over inputs with quotes, CRLF and escapes at every place.
final class DelimitedReaderTests: XCTestCase {
    func testRecordsAreTheSameForEveryChunkingOfTheInput() throws {
        let (generator, seed) = SeededGenerator.forSweep("chunking sweep", variable: "CIPHERCTL_CHUNK_SEED")
        var random = generator
        let inputs: [(ImportFormat, String, [[String]])] = [
            (.csv, "a,b\r\n1,\"x, \"\"y\"\"\r\nz\"\r\n\n2,\r\n\"\",3\n", [["1", "x, \"y\"\r\nz"], ["2", ""], ["", "3"]]),
            (.tsv, "a\tb\n1\tx\\ty\\nz\\\\\n2\t\\q\r\n3\tends in CR\\r\n4\tand\\r\r\n", [["1", "x\ty\nz\\"], ["2", "\\q"], ["3", "ends in CR\r"], ["4", "and\r"]]),
            (.csv, "one\r\n\r\nx\r\n\"\"\r\n", [[""], ["x"], [""]]),
        ]
        for (format, text, expected) in inputs {
            for _ in 0..<200 {
                var bytes = Array(text.utf8)[...]
                var sizes: [Int] = []
                let input: () throws -> [UInt8]? = {
                    guard !bytes.isEmpty else { return nil }
                    let size = Int.random(in: 1...max(1, bytes.count), using: &random)
                    sizes.append(size)
                    defer { bytes = bytes.dropFirst(size) }
                    return Array(bytes.prefix(size))
                }
                var reader = DelimitedReader(input, format: format)
                XCTAssertEqual(try reader.header(), expected[0].count == 2 ? ["a", "b"] : ["one"])
                var records: [[String]] = []
                while let row = try reader.next() {
                    records.append((0..<row.count).map { String(decoding: row.field($0), as: UTF8.self) })
                }
                XCTAssertEqual(records, expected, "seed \(seed), \(format), chunks \(sizes)")
            }
        }
    }
}
