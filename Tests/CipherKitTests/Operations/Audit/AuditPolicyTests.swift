import CipherKit
import Foundation
import TestSupport
import XCTest

/// The policy's findings over a seeded sweep of facts: each finding present exactly when
/// its rule says, whatever the other facts are.
final class AuditPolicyTests: XCTestCase {
    func testEachFindingAppearsExactlyWhenItsRuleHoldsAcrossASweepOfFacts() {
        let (generator, seed) = SeededGenerator.forSweep("audit policy sweep", variable: "CIPHERCTL_POLICY_SEED")
        var random = generator
        for round in 0..<2000 {
            var policy = AuditPolicy()
            policy.forbidsPlaintext = Bool.random(using: &random)
            policy.requiresHMAC = Bool.random(using: &random)
            policy.minimumKDFIterations = [nil, 64000, 256000].randomElement(using: &random)!
            policy.requiredAlgorithm = [nil, .sha256, .sha512].randomElement(using: &random)!
            policy.maximumMode = [nil, 0o600, 0o640].randomElement(using: &random)!
            let audit = randomFacts(&random)
            let codes = Set(policy.findings(for: audit).map(\.code))
            let label = "seed \(seed) round \(round): \(audit) \(policy)"
            let settings = audit.settings
            let passphrase = audit.keyKind == .passphrase
            let expected: [(AuditFinding.Code, Bool)] = [
                (.plaintext, policy.forbidsPlaintext && audit.kind == .plaintext),
                (.mode, policy.maximumMode.map { audit.isDatabase && (audit.mode ?? 0) & ~$0 != 0 } ?? false),
                (.kdfIterations, passphrase && (settings?.kdfIterations ?? .max) < (policy.minimumKDFIterations ?? 0)),
                (.noHMAC, policy.requiresHMAC && settings?.useHMAC == false),
                (.algorithm, policy.requiredAlgorithm.map { required in
                    guard let settings else { return false }
                    let hmacOther = settings.useHMAC != false && settings.hmacAlgorithm != required
                    let kdfOther = passphrase && settings.kdfAlgorithm != KDFAlgorithm(name: required.shortName)
                    return hmacOther || kdfOther
                } ?? false),
                (.damaged, audit.failure == .damaged),
                (.cannotOpen, audit.opened == false && audit.failure != .damaged),
                (.hotJournal, audit.hotJournal),
                (.leftovers, !audit.leftovers.isEmpty),
            ]
            for (code, present) in expected {
                XCTAssertEqual(codes.contains(code), present, "\(code): \(label)")
            }
        }
    }

    private func randomFacts(_ random: inout SeededGenerator) -> FileAudit {
        var audit = FileAudit(path: "f.db", kind: [.plaintext, .sqlcipher, .plaintextHeader, .notADatabase, .empty].randomElement(using: &random)!)
        audit.mode = [0o600, 0o640, 0o644, 0o400, 0o000].randomElement(using: &random)!
        audit.hotJournal = Int.random(in: 0..<5, using: &random) == 0
        audit.leftovers = Int.random(in: 0..<5, using: &random) == 0 ? ["f.db.cipherctl-tmp-1-x"] : []
        guard audit.kind == .sqlcipher else { return audit }
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            audit.opened = false
            audit.failure = [.wrongKey, .damaged, .noFormatMatched].randomElement(using: &random)!
        case 1:
            break
        default:
            audit.opened = true
            audit.keyKind = [.passphrase, .rawKey].randomElement(using: &random)!
            audit.settings = CipherSettings(
                kdfIterations: [4000, 64000, 256000].randomElement(using: &random)!,
                hmacAlgorithm: HMACAlgorithm.allCases.randomElement(using: &random)!,
                kdfAlgorithm: KDFAlgorithm.allCases.randomElement(using: &random)!,
                useHMAC: Bool.random(using: &random))
        }
        return audit
    }
}
