import CCipherProvider
@testable import CipherKit
import XCTest

/// The one-pass PBKDF2 search finds exactly the iteration count and key that PBKDF2 itself
/// derives, for every algorithm and a sweep of counts around the edges (1, SHA1's second
/// block, the stop check every 1024 counts); the files are real SQLCipher files, so page 1
/// is what the search meets in the field.
final class SettingsSearchTests: CipherKitTestCase {
    func testTheSearchFindsTheCountAndKeyThatPBKDF2DerivesForEveryAlgorithm() throws {
        let counts = [1, 2, 3, 21, 1023, 1024, 1025, 2999]
        for algorithm in KDFAlgorithm.allCases {
            for (number, count) in counts.enumerated() {
                let pageSize = [1024, 4096, 16384, 65536][number % 4]
                let label = "\(algorithm.rawValue), \(count) iterations, page \(pageSize)"
                let settings = CipherSettings(pageSize: pageSize, kdfIterations: count, kdfAlgorithm: algorithm)
                let target = try makeEncryptedDatabase("s-\(algorithm.digestBits)-\(count).db", key: "search", settings: settings, sql: "CREATE TABLE t(x)")
                let page1 = try XCTUnwrap(FileOperations.leadingBytes(of: target, count: 65536))
                var iterations: Int32 = 0, key = [UInt8](repeating: 0, count: 32), match = cipherprovider_block_match()
                let pass = Array("search".utf8)
                let found = providerSearch(
                    pass, page1: page1, digest: algorithm.digestBits, maxIterations: Int32(count + 10), iterations: &iterations, key: &key, match: &match)
                XCTAssertEqual(found, 1, label)
                XCTAssertEqual(Int(iterations), count, label)
                XCTAssertEqual(Int(match.page_size), pageSize, label)
                var expected = [UInt8](repeating: 0, count: 32)
                XCTAssertEqual(providerPBKDF2(pass, salt: Array(page1.prefix(16)), iterations: Int32(count), digest: algorithm.digestBits, into: &expected, length: 32), 1)
                XCTAssertEqual(key, expected, label)
                let short = providerSearch(
                    pass, page1: page1, digest: algorithm.digestBits, maxIterations: Int32(count - 1), iterations: &iterations, key: &key, match: &match)
                XCTAssertEqual(short, count == 1 ? -1 : 0, "\(label): a search that stops short finds nothing")
            }
        }
    }

    /// Whatever the number of cores, every algorithm is searched by exactly one thread, and
    /// SHA-512 (the slowest chain) never waits for another algorithm on its thread when there
    /// is a second core.
    func testEveryCoreCountSearchesEachAlgorithmOnceWithSHA512UnsharedFromTwoCores() {
        for cores in 0...8 {
            let groups = SettingsSearch.threadGroups(cores: cores)
            XCTAssertEqual(groups.flatMap { $0 }.sorted { $0.digestBits < $1.digestBits }, [.pbkdf2SHA1, .pbkdf2SHA256, .pbkdf2SHA512], "\(cores) cores")
            XCTAssertLessThanOrEqual(groups.count, max(cores, 1), "\(cores) cores")
            if cores >= 2 { XCTAssertEqual(groups.first, [.pbkdf2SHA512], "\(cores) cores") }
        }
    }

    /// Several keys in one search: each passphrase's three chains run once, at most
    /// SEARCH_LOCKSTEP_MAX at a time on a thread, the first passphrase's first on every thread
    /// as it would run alone, and with two passphrases on two cores each thread has one SHA-512
    /// chain (the slowest), so the two carry the same work.
    func testSeveralPassphrasesRunEachChainOnceTheFirstAsAloneAndTwoOnTwoCoresShareTheSHA512Chains() {
        for cores in 0...8 {
            for keys in 1...3 {
                let plans = SettingsSearch.threadPlans(cores: cores, keys: keys)
                let chains = plans.flatMap { $0.flatMap { $0 } }.map { "\($0.passphrase) \($0.algorithm.rawValue)" }.sorted()
                let expected = (0..<keys).flatMap { key in KDFAlgorithm.allCases.map { "\(key) \($0.rawValue)" } }.sorted()
                XCTAssertEqual(chains, expected, "\(cores) cores, \(keys) keys")
                XCTAssertTrue(plans.allSatisfy { $0.allSatisfy { (1...Int(SEARCH_LOCKSTEP_MAX)).contains($0.count) } }, "\(cores) cores, \(keys) keys")
                XCTAssertEqual(plans.map { $0[0].map(\.algorithm) }, SettingsSearch.threadGroups(cores: cores), "\(cores) cores: the first key as alone")
                XCTAssertTrue(plans.allSatisfy { $0[0].allSatisfy { $0.passphrase == 0 } }, "\(cores) cores")
            }
        }
        let two = SettingsSearch.threadPlans(cores: 2, keys: 2)
        XCTAssertEqual(two.map { $0.flatMap { $0 }.filter { $0.algorithm == .pbkdf2SHA512 }.count }, [1, 1])
    }

    /// The search of several keys says which one opens the file, wherever it stands among
    /// them (a raw key among passphrases too), finds its count as the search of that key alone
    /// does, and finds nothing when none is the key.
    func testASearchOfSeveralKeysFindsTheOneThatIsTheKeyWhereverItStands() throws {
        let settings = CipherSettings(kdfIterations: 1500, kdfAlgorithm: .pbkdf2SHA256)
        let target = try makeEncryptedDatabase("several.db", key: "the right key", settings: settings, sql: "CREATE TABLE t(x)")
        let page1 = try XCTUnwrap(FileOperations.leadingBytes(of: target, count: 65536))
        let right = try passphrase("the right key"), wrong = try passphrase("a wrong key")
        let wrongRaw = try KeyMaterial.rawKey(hex: Array(("x'" + String(repeating: "ab", count: 32) + "'").utf8))
        for (keys, index) in [([right, wrong], 0), ([wrong, right], 1), ([wrongRaw, wrong, right], 2)] {
            let (found, alone) = (try SettingsSearch.search(keys, page1: page1), try SettingsSearch.search(right, page1: page1))
            XCTAssertEqual(found?.index, index, "\(keys.count) keys")
            XCTAssertEqual(found?.found.candidates.first?.kdfIterations, 1500)
            XCTAssertEqual(found?.found.candidates.first?.kdfAlgorithm, .pbkdf2SHA256)
            XCTAssertEqual(found?.found.candidates.count, alone?.candidates.count)
            XCTAssertTrue(found.map { $0.found.key.hasSameSecret(as: alone!.key) } ?? false, "the same raw key as the search of that key alone")
        }
        XCTAssertNil(try SettingsSearch.search([wrong, try passphrase("another wrong key")], page1: page1))
    }

    /// 2,000 wrong passphrases (each searched over its first 300 counts with every algorithm)
    /// and 2,000 wrong raw keys: the page-1 test never takes one for the key.
    func testTwoThousandWrongKeysNeverMatch() throws {
        let target = try makeEncryptedDatabase("wrong.db", key: "the right key", sql: "CREATE TABLE t(x)")
        let page1 = try XCTUnwrap(FileOperations.leadingBytes(of: target, count: 65536))
        var generator = SystemRandomNumberGenerator()
        var iterations: Int32 = 0, key = [UInt8](repeating: 0, count: 32), match = cipherprovider_block_match()
        for number in 0..<2000 {
            let pass = Array("wrong key \(number) \(UInt64.random(in: 0...UInt64.max, using: &generator))".utf8)
            for algorithm in KDFAlgorithm.allCases {
                let found = providerSearch(pass, page1: page1, digest: algorithm.digestBits, maxIterations: 300, iterations: &iterations, key: &key, match: &match)
                XCTAssertEqual(found, 0, "a wrong passphrase matched at \(iterations) iterations of \(algorithm.rawValue)")
            }
            let raw = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(cipherprovider_block_matches(raw, page1, page1.count, &match), 0, "a wrong raw key matched")
        }
    }
}
