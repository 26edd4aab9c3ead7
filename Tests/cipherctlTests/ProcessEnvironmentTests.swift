@testable import cipherctl
import Foundation
import Glibc
import TestSupport
import XCTest

/// The tool reads its environment itself (`ProcessEnvironment`, for its start-up time): it
/// must give what `ProcessInfo.environment` gives, held against it on environments made of
/// the entries where they could differ: `=` inside values and followed by combining marks,
/// entries without `=`, repeated names, empty names and values, invalid UTF-8.
final class ProcessEnvironmentTests: XCTestCase {
    private let pieces: [[UInt8]] = [
        Array("=".utf8), Array("=".utf8), Array("A".utf8), Array("_x".utf8), Array("PATH".utf8), Array(" ".utf8),
        Array("é".utf8), Array("\u{301}".utf8), Array("\u{600}".utf8), Array("😀".utf8), Array("\r".utf8),
        Array("\n".utf8), [0xFF], [0xC3], [0x80], Array("x=y".utf8),
    ]

    func testTheProcessEnvironmentMatchesProcessInfosForASweepOfMadeEnvironments() {
        let (generator, _) = SeededGenerator.forSweep("environment sweep", variable: "CIPHERCTL_ENVIRONMENT_SEED")
        var random = generator
        for _ in 0..<sweepCases("CIPHERCTL_ENVIRONMENT_CASES", quick: 500) {
            let entries = (0..<Int.random(in: 0...12, using: &random)).map { _ in
                (0..<Int.random(in: 0...6, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! }
            }
            let (ours, foundations) = withEnvironment(entries) { (ProcessEnvironment.read(), ProcessInfo.processInfo.environment) }
            XCTAssertEqual(ours, foundations, "\(entries)")
        }
    }

    func testTheProcessOwnEnvironmentReadsAsProcessInfoReadsIt() {
        XCTAssertEqual(ProcessEnvironment.read(), ProcessInfo.processInfo.environment)
        XCTAssertFalse(ProcessEnvironment.read().isEmpty)
    }

    /// Runs `body` with `environ` holding just `entries`, then puts the process's own back.
    private func withEnvironment<T>(_ entries: [[UInt8]], _ body: () -> T) -> T {
        let copies = entries.map { bytes -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            copy.withMemoryRebound(to: UInt8.self, capacity: bytes.count + 1) { target in
                target.update(from: bytes, count: bytes.count)
                target[bytes.count] = 0
            }
            return copy
        }
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: copies.count + 1)
        table.initialize(from: copies.map { Optional($0) } + [nil], count: copies.count + 1)
        // Swift sees `environ` as read-only: written through its address, as setenv writes it.
        let variable = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "environ")!
            .assumingMemoryBound(to: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?.self)
        let saved = variable.pointee
        variable.pointee = table
        defer {
            variable.pointee = saved
            copies.forEach { $0.deallocate() }
            table.deallocate()
        }
        return body()
    }
}
