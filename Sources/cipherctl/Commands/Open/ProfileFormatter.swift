import CipherKit
import FoundationEssentials
import Glibc

/// Renders a `DatabaseProfile` as aligned text or as one JSON object.
///
/// The JSON fields are stable and snake_case; docs/ci-key-rotation.md lists them.
enum ProfileFormatter {
    /// The profile as `label: value` lines, aligned, ending with a newline.
    static func text(_ profile: DatabaseProfile, keyLabel: String? = nil) -> String {
        var lines: [(String, String)] = [
            ("path", profile.path),
            ("file size", "\(profile.fileSize) bytes"),
            ("encrypted", profile.encrypted ? "yes" : "no"),
        ]
        if let keyLabel { lines.append(("key ring entry", keyLabel)) }
        lines += [
            ("format", profile.formatDescription + (profile.searchSeconds.map { " (settings found by search in \(OperationFormatter.seconds($0)))" } ?? "")),
        ]
        if let cipher = profile.cipher {
            lines += cipherLines(cipher)
        } else {
            lines.append(("page size", String(profile.pageSize)))
        }
        lines += [
            ("page count", String(profile.pageCount)),
            ("freelist count", String(profile.freelistCount)),
            ("journal mode", profile.journalMode + (profile.hotJournal ? " (hot journal beside it: read as rolled back, in memory)" : "")),
            ("encoding", profile.encoding),
            ("auto vacuum", profile.autoVacuum),
            ("user version", String(profile.userVersion)),
            ("application id", String(profile.applicationID)),
            ("tables", String(profile.tableCount)),
            ("indexes", String(profile.indexCount)),
            ("views", String(profile.viewCount)),
            ("triggers", String(profile.triggerCount)),
        ]
        let width = lines.map(\.0.count).max() ?? 0
        var out = lines.map { label, value in
            label + ":" + String(repeating: " ", count: width - label.count + 1) + value
        }.joined(separator: "\n") + "\n"
        out += rowAndIntegrityText(profile, width: width)
        return out
    }

    /// The settings of an encrypted database.
    private static func cipherLines(_ cipher: CipherSettings) -> [(String, String)] {
        var lines: [(String, String)] = [
            ("page size", cipher.pageSize.map(String.init) ?? "unknown"),
            ("kdf iterations", cipher.kdfIterations.map(String.init) ?? "unknown"),
            ("hmac", cipher.useHMAC == false ? "off" : (cipher.hmacAlgorithm?.rawValue ?? "unknown")),
            ("kdf algorithm", cipher.kdfAlgorithm?.rawValue ?? "unknown"),
        ]
        if cipher.hmacPageNumber == .bigEndian { lines.append(("hmac page numbers", "big-endian")) }
        if let fast = cipher.fastKDFIterations, fast != 2 { lines.append(("hmac key kdf iterations", String(fast))) }
        if let mask = cipher.hmacSaltMask, mask != 0x3a { lines.append(("hmac salt mask", Hex.encode([mask]))) }
        lines += [
            ("plaintext header", "\(cipher.plaintextHeaderSize ?? 0) bytes"),
            ("salt", cipher.salt.map(Hex.encode) ?? "unknown"),
        ]
        return lines
    }

    /// The rows counted and the integrity check, when they were asked for; `width` is the labels'.
    private static func rowAndIntegrityText(_ profile: DatabaseProfile, width: Int) -> String {
        var out = ""
        if let counts = profile.rowCounts {
            out += "rows:\n"
            let tableWidth = counts.map(\.table.count).max() ?? 0
            for count in counts {
                out += "  " + count.table + String(repeating: " ", count: tableWidth - count.table.count + 2) + String(count.rows) + "\n"
            }
        }
        if let integrity = profile.integrity {
            out += "integrity:" + String(repeating: " ", count: max(1, width - 8)) + (integrity.isOK ? "ok" : "\(integrity.problems.count) problem(s)") + "\n"
            for problem in integrity.problems {
                out += "  " + problem + "\n"
            }
        }
        return out
    }

    /// The profile as one JSON object.
    static func json(_ profile: DatabaseProfile, keyLabel: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("path", .string(profile.path)),
            ("file_size", .integer(profile.fileSize)),
            ("encrypted", .bool(profile.encrypted)),
            ("format", .string(profile.formatDescription)),
            ("format_version", .integer(profile.formatVersion)),
            ("format_detected", .bool(profile.detectedFormat != nil || profile.searchSeconds != nil)),
            ("format_attempts", .integer(profile.formatAttempts)),
            ("settings_searched", .bool(profile.searchSeconds != nil)),
            ("search_seconds", profile.searchSeconds.map(JSONValue.number) ?? .null),
            ("cipher", profile.cipher.map(json(cipher:)) ?? .null),
            ("page_size", .integer(profile.pageSize)),
            ("page_count", .integer(profile.pageCount)),
            ("freelist_count", .integer(profile.freelistCount)),
            ("journal_mode", .string(profile.journalMode)),
            ("hot_journal", .bool(profile.hotJournal)),
            ("encoding", .string(profile.encoding)),
            ("auto_vacuum", .string(profile.autoVacuum)),
            ("user_version", .integer(profile.userVersion)),
            ("application_id", .integer(profile.applicationID)),
            ("tables", .integer(profile.tableCount)),
            ("indexes", .integer(profile.indexCount)),
            ("views", .integer(profile.viewCount)),
            ("triggers", .integer(profile.triggerCount)),
        ]
        if let keyLabel { members.append(("key_label", .string(keyLabel))) }
        if let counts = profile.rowCounts {
            members.append(("row_counts", .object(counts.map { ($0.table, .integer($0.rows)) })))
        }
        if let integrity = profile.integrity {
            members.append(("integrity", .object([
                ("ok", .bool(integrity.isOK)),
                ("cipher_problems", .array(integrity.cipherProblems.map(JSONValue.string))),
                ("sqlite_problems", .array(integrity.sqliteProblems.map(JSONValue.string))),
                ("failed_pages", .array(integrity.failedPages.map { .integer($0) })),
            ])))
        }
        return .object(members)
    }

    /// Cipher settings as a JSON object (never a key). `compatibility` is N only for exactly
    /// SQLCipher N's defaults, however the settings were reached (a format and a mask on top
    /// of it are not that format's defaults).
    static func json(cipher: CipherSettings) -> JSONValue {
        .object([
            ("compatibility", .integer(cipher.effective.matchingCompatibility)),
            ("page_size", .integer(cipher.pageSize)),
            ("kdf_iter", .integer(cipher.kdfIterations)),
            ("hmac_algorithm", .string(cipher.hmacAlgorithm?.rawValue)),
            ("kdf_algorithm", .string(cipher.kdfAlgorithm?.rawValue)),
            ("use_hmac", cipher.useHMAC.map(JSONValue.bool) ?? .null),
            ("hmac_pgno", .string(cipher.hmacPageNumber?.rawValue ?? HMACPageNumber.littleEndian.rawValue)),
            ("fast_kdf_iter", .integer(cipher.fastKDFIterations ?? 2)),
            ("hmac_salt_mask", .string(Hex.encode([cipher.hmacSaltMask ?? 0x3a]))),
            ("plaintext_header_size", .integer(cipher.plaintextHeaderSize)),
            ("salt", .string(cipher.salt.map(Hex.encode))),
        ])
    }
}
