import CipherKit
import FoundationEssentials
import Glibc

/// Renders rekey and export reports as one text line or one JSON object.
/// Settings appear, never keys.
enum OperationFormatter {
    /// One line for a rekey.
    static func text(_ report: RekeyReport) -> String {
        if report.dryRun, report.action == .alreadyDone {
            return "dry run '\(report.path)': already opens with the new key and the target settings; nothing to do\n"
        }
        if report.dryRun {
            return "dry run '\(report.path)': would rekey \(report.action.rawValue) (\(report.pages) pages); key, lock, writability and free space checked, nothing changed\n"
        }
        let method = report.copyMethod.map { " (\($0.rawValue))" } ?? ""
        var line = "rekeyed '\(report.path)' \(report.action.rawValue)\(method): \(report.pages) pages, \(seconds(report.seconds))"
        if report.finishedInterrupted, report.action == .lowSpace || report.action == .undone {
            line += report.action == .undone ? " (an interrupted rotation, rolled back)" : " (an interrupted rotation, finished)"
        }
        if report.action == .alreadyDone {
            line = "'\(report.path)' already opens with the new key and the target settings: nothing to rewrite"
            if report.finishedInterrupted { line += " (an interrupted rekey had committed it; its journal mode is put back)" }
        }
        line += "; " + verificationText(report.verification, snapshot: report.snapshot, verificationSeconds: report.verificationSeconds)
        if let backup = report.backupPath { line += "; original kept as '\(backup)'" }
        return line + "\n"
    }

    /// One line for an export.
    static func text(_ report: ExportReport) -> String {
        let format = report.destinationScheme.map { "SQLite3 Multiple Ciphers' \($0.summary)" } ?? report.destinationSettings.map { settings in
            settings.matchingCompatibility.map { "SQLCipher \($0) defaults" } ?? "SQLCipher custom settings"
        } ?? "plaintext"
        let from = report.sourceScheme.map { " (\($0.origin))" } ?? ""
        var line = "exported '\(report.source)'\(from) to '\(report.destination)' (\(format)): \(report.pages) pages, \(seconds(report.seconds))"
        if report.alreadyDone {
            line = "'\(report.destination)' already holds a copy of '\(report.source)' with the destination key (\(format)): nothing to write"
        }
        line += "; " + verificationText(report.verification, snapshot: report.snapshot, verificationSeconds: report.verificationSeconds)
        return line + "\n"
    }

    private static func verificationText(_ verification: VerificationReport?, snapshot: DatabaseSnapshot, verificationSeconds: Double) -> String {
        guard let verification else { return "not verified" }
        guard verification.isOK else { return "verification FAILED: " + verification.problems.joined(separator: "; ") }
        let tables = snapshot.tableCount
        var text = "verified: integrity ok, \(tables) table\(tables == 1 ? "" : "s"), \(snapshot.totalRows) rows match"
        if !verification.fullChecks, let pages = verification.pagesProven {
            text = "verified: all \(pages) pages decrypt back to their source, schema and header match"
        }
        if verification.oldKeyRejected == true { text += ", old key refused" }
        return text + " (\(seconds(verificationSeconds)))"
    }

    /// `1.23 s`: C's `%.2f`, as `String(format:)` wrote it.
    static func seconds(_ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.2f s", $0) }
        return String(cString: buffer)
    }

    /// A rekey's report with the key ring label of its old key, when a ring gave it.
    static func json(_ report: RekeyReport, keyLabel: String?) -> JSONValue {
        labelled(json(report), keyLabel: keyLabel)
    }

    /// `object` with `key_label` last, when a key ring's entry gave the key.
    static func labelled(_ object: JSONValue, keyLabel: String?) -> JSONValue {
        guard let keyLabel, case .object(let members) = object else { return object }
        return .object(members + [("key_label", .string(keyLabel))])
    }

    static func json(_ report: RekeyReport) -> JSONValue {
        .object([
            ("path", .string(report.path)),
            ("action", .string(report.action.rawValue)),
            ("method", .string(report.copyMethod?.rawValue)),
            ("dry_run", .bool(report.dryRun)),
            ("finished_interrupted", .bool(report.finishedInterrupted)),
            ("ok", .bool(report.verification?.isOK ?? true)),
            ("detected_format", .string(report.format?.name)),
            ("format_attempts", .integer(report.formatAttempts)),
            ("old_settings", ProfileFormatter.json(cipher: report.oldSettings)),
            ("new_settings", ProfileFormatter.json(cipher: report.newSettings)),
        ] + work(
            pages: report.pages, bytes: report.bytes, seconds: report.seconds, verificationSeconds: report.verificationSeconds,
            verification: report.verification, snapshot: report.snapshot) + [
            ("backup", .string(report.backupPath)),
            ("removed_leftovers", .array(report.removedLeftovers.map(JSONValue.string))),
        ])
    }

    static func json(_ report: ExportReport) -> JSONValue {
        .object([
            ("source", .string(report.source)),
            ("destination", .string(report.destination)),
            ("action", .string(report.alreadyDone ? "already-done" : "exported")),
            ("ok", .bool(report.verification?.isOK ?? true)),
            ("encrypted", .bool(report.destinationSettings != nil || report.destinationScheme != nil)),
            ("source_family", .string(report.sourceScheme?.family.rawValue ?? (report.sourceSettings == nil ? nil : "sqlcipher"))),
            ("source_scheme", report.sourceScheme.map(json(source:)) ?? .null),
            ("destination_family", .string(report.destinationScheme != nil ? "chacha20" : report.destinationSettings == nil ? nil : "sqlcipher")),
            ("destination_scheme", report.destinationScheme.map(json(scheme:)) ?? .null),
            ("method", .string(report.method.rawValue)),
            ("source_detected_format", .string(report.sourceFormat?.name)),
            ("source_format_attempts", .integer(report.sourceFormatAttempts)),
            ("source_settings", report.sourceSettings.map(ProfileFormatter.json(cipher:)) ?? .null),
            ("destination_settings", report.destinationSettings.map(ProfileFormatter.json(cipher:)) ?? .null),
        ] + work(
            pages: report.pages, bytes: report.bytes, seconds: report.seconds, verificationSeconds: report.verificationSeconds,
            verification: report.verification, snapshot: report.snapshot) + [
            ("removed_leftovers", .array(report.removedLeftovers.map(JSONValue.string))),
        ])
    }

    /// The fields rekey and export share: the work done, its timing and its verification.
    private static func work(
        pages: Int, bytes: Int, seconds: Double, verificationSeconds: Double, verification: VerificationReport?, snapshot: DatabaseSnapshot
    ) -> [(String, JSONValue)] {
        [
            ("pages", .integer(pages)),
            ("bytes", .integer(bytes)),
            ("seconds", .number(seconds)),
            ("verification_seconds", .number(verificationSeconds)),
            ("verification", json(verification)),
            ("tables", .integer(snapshot.tableCount)),
            ("rows", snapshot.rowsCounted ? .integer(snapshot.totalRows) : .null),
        ]
    }

    /// SQLite3 Multiple Ciphers' ChaCha20 settings, named as its pragmas name them.
    /// A source's scheme; `kdf_iter` is null for the schemes whose KDF takes no count.
    static func json(source scheme: ForeignScheme) -> JSONValue {
        .object([
            ("cipher", .string(scheme.cipherLabel)), ("kdf_iter", scheme.kdfIterations.map { .integer($0) } ?? .null), ("legacy", .bool(scheme.legacy)),
            ("page_size", .integer(scheme.pageSize)),
            ("hmac_pgno", scheme.hmacPageNumber.map { .string($0.rawValue) } ?? .null),
            ("hmac_salt_mask", scheme.hmacSaltMask.map { .string(Hex.encode([$0])) } ?? .null),
        ])
    }

    static func json(scheme: ChaChaScheme) -> JSONValue {
        .object([
            ("cipher", .string("chacha20")), ("kdf_iter", .integer(scheme.kdfIterations)), ("legacy", .bool(scheme.legacy)),
            ("page_size", .integer(scheme.pageSize)), ("hmac_pgno", .null), ("hmac_salt_mask", .null),
        ])
    }

    static func json(_ verification: VerificationReport?) -> JSONValue {
        guard let verification else { return .null }
        return .object([
            ("ok", .bool(verification.isOK)),
            ("integrity_ok", .bool(verification.integrity.isOK)),
            ("old_key_rejected", verification.oldKeyRejected.map(JSONValue.bool) ?? .null),
            ("proof", .string(verification.fullChecks ? "full" : "pages")),
            ("pages_proven", verification.pagesProven.map(JSONValue.integer) ?? .null),
            ("problems", .array(verification.problems.map(JSONValue.string))),
        ])
    }
}
