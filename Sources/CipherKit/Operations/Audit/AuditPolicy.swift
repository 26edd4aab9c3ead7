/// The rules an audit applies: problems every file is checked for, and what a policy adds
/// (a KDF iteration floor, page HMACs, one hash algorithm, no plaintext, a permission ceiling).
public struct AuditPolicy: Equatable, Sendable {
    /// The fewest PBKDF2 iterations a passphrase-keyed database may have.
    public var minimumKDFIterations: Int?
    public var requiresHMAC = false
    /// The hash both the page HMAC and the KDF must use.
    public var requiredAlgorithm: HMACAlgorithm?
    public var forbidsPlaintext = false
    /// The most permission bits a file may have (`0o600`: no group or other access).
    public var maximumMode: UInt32?

    public init() {}

    /// Whether a rule needs the cipher settings, so a key.
    public var needsSettings: Bool {
        minimumKDFIterations != nil || requiresHMAC || requiredAlgorithm != nil
    }

    /// The findings for an audit, in a fixed order.
    public func findings(for audit: FileAudit) -> [AuditFinding] {
        stateFindings(audit) + policyFindings(audit)
    }

    private func stateFindings(_ audit: FileAudit) -> [AuditFinding] {
        var found: [AuditFinding] = []
        switch audit.kind {
        case .unreadable: found.append(AuditFinding(.unreadable, "cannot be read: " + (audit.problem ?? "unknown reason")))
        case .missing: found.append(AuditFinding(.missing, audit.symlinkTarget.map { "a symbolic link to '\($0)', which does not exist" } ?? "no such file"))
        default: break
        }
        let problems = audit.integrityProblems ?? []
        if audit.halfRotated {
            // Its pages are under two keys: neither opens it, and that is no damage.
            let record = audit.problem?.contains(RotationMark.recordMissing) == true ? "its record is missing" : "its record is beside it"
            found.append(AuditFinding(.halfRotated, "an interrupted rotation in place may have left pages under both keys (\(record))"))
        } else if audit.failure == .damaged || !problems.isEmpty {
            let first = (problems.first ?? "").split(separator: "\n").first.map(String.init) ?? ""
            found.append(AuditFinding(.damaged, audit.problem ?? "integrity check: \(problems.count) problem\(problems.count == 1 ? "" : "s"), the first: " + first))
        } else if audit.failure == .busy {
            found.append(AuditFinding(.busy, audit.problem ?? "another process holds it"))
        } else if audit.opened == false {
            found.append(AuditFinding(.cannotOpen, audit.problem ?? "the key does not open it"))
        }
        if audit.hotJournal {
            found.append(AuditFinding(.hotJournal, "a hot journal from an interrupted write is beside it; the next read-write open rolls it back"))
        }
        if !audit.leftovers.isEmpty {
            found.append(AuditFinding(.leftovers, "left by interrupted cipherctl runs: " + audit.leftovers.map { "'\($0)'" }.joined(separator: ", ")))
        }
        return found
    }

    private func policyFindings(_ audit: FileAudit) -> [AuditFinding] {
        var found: [AuditFinding] = []
        if forbidsPlaintext, audit.kind == .plaintext {
            found.append(AuditFinding(.plaintext, "a plaintext SQLite database: not encrypted"))
        }
        if let maximumMode, let mode = audit.mode, audit.isDatabase, mode & ~maximumMode != 0 {
            found.append(AuditFinding(.mode, "mode \(Self.octal(mode)) allows more than \(Self.octal(maximumMode))"))
        }
        guard let settings = audit.settings else { return found }
        if let minimum = minimumKDFIterations, audit.keyKind == .passphrase, let iterations = settings.kdfIterations, iterations < minimum {
            found.append(AuditFinding(.kdfIterations, "\(iterations) KDF iterations, fewer than \(minimum)"))
        }
        if requiresHMAC, settings.useHMAC == false {
            found.append(AuditFinding(.noHMAC, "pages carry no HMAC: a change to their bytes goes unnoticed"))
        }
        if let required = requiredAlgorithm {
            let weaker = algorithmsOtherThan(required, settings: settings, passphrase: audit.keyKind == .passphrase)
            if !weaker.isEmpty {
                found.append(AuditFinding(.algorithm, "uses " + weaker.joined(separator: " and ") + ", not " + required.shortName))
            }
        }
        return found
    }

    /// The page HMAC (when pages carry one) and the KDF (when a passphrase is derived) that
    /// do not use `required`'s hash.
    private func algorithmsOtherThan(_ required: HMACAlgorithm, settings: CipherSettings, passphrase: Bool) -> [String] {
        var other: [String] = []
        if settings.useHMAC != false, let hmac = settings.hmacAlgorithm, hmac != required { other.append(hmac.rawValue) }
        if passphrase, let kdf = settings.kdfAlgorithm, kdf != KDFAlgorithm(name: required.shortName) { other.append(kdf.rawValue) }
        return other
    }

    /// `0644`.
    public static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
