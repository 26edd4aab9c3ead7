import CipherKit

/// Renders `audit`'s results: a JSON object a file and a JSON summary, or a table, the
/// findings one a line, and a summary line. The JSON fields are stable; docs/json.md lists them.
enum AuditFormatter {
    /// One file's facts and findings as a JSON object.
    static func json(_ audit: FileAudit, findings: [AuditFinding]) -> JSONValue {
        .object([
            ("path", .string(audit.path)),
            ("kind", .string(audit.kind.rawValue)),
            ("family", .string(audit.kind == .sqlcipher && audit.family == "random" ? "sqlcipher" : audit.family)),
            ("symlink", .string(audit.symlinkTarget)),
            ("size", .integer(audit.size)),
            ("mode", .string(audit.mode.map(AuditPolicy.octal))),
            ("uid", .integer(audit.ownerID.map(Int.init))),
            ("gid", .integer(audit.groupID.map(Int.init))),
            ("opened", audit.opened.map(JSONValue.bool) ?? .null),
            ("format", .string(audit.formatName ?? (audit.settings == nil ? nil : "custom"))),
            ("key_kind", .string(audit.keyKind?.rawValue)),
            ("key_label", .string(audit.keyLabel)),
            ("cipher", audit.settings.map(ProfileFormatter.json(cipher:)) ?? .null),
            ("journal_mode", .string(audit.journalMode)),
            ("wal_file", .bool(audit.walFile)),
            ("hot_journal", .bool(audit.hotJournal)),
            ("leftovers", .array(audit.leftovers.map(JSONValue.string))),
            ("integrity_problems", audit.integrityProblems.map { .array($0.map(JSONValue.string)) } ?? .null),
            ("problem", .string(audit.problem)),
            ("findings", .array(findings.map { .object([("code", .string($0.code.rawValue)), ("message", .string($0.message))]) })),
        ])
    }

    /// The table of every file, then each finding on a line of its own.
    static func text(_ results: [(FileAudit, [AuditFinding])]) -> String {
        // The KEY column only for a key ring's audit: which entry opened each file.
        let labelled = results.contains { $0.0.keyLabel != nil }
        let header = ["PATH", "KIND", "MODE", "FORMAT"] + (labelled ? ["KEY"] : []) + ["JOURNAL", "FINDINGS"]
        let rows = results.map { audit, findings in
            [printable(audit.path), audit.kind.rawValue, audit.mode.map(AuditPolicy.octal) ?? "-",
             audit.formatName ?? (audit.settings == nil ? "-" : "custom")] + (labelled ? [audit.keyLabel ?? "-"] : []) + [audit.journalMode ?? "-",
             findings.isEmpty ? "-" : findings.map(\.code.rawValue).joined(separator: ",")]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let lines = ([header] + rows).map { cells in
            withoutTrailingSpaces(zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  "))
        }
        var out = lines.joined(separator: "\n") + "\n"
        let details = results.flatMap { audit, findings in findings.map { "  \(printable(audit.path)): \($0.code.rawValue): \($0.message)" } }
        if !details.isEmpty { out += "findings:\n" + details.joined(separator: "\n") + "\n" }
        return out
    }

    /// `312 files: 40 plaintext, 200 sqlcipher, …; 57 with findings (30 mode, 20 plaintext, …)`.
    static func summaryText(_ results: [(FileAudit, [AuditFinding])]) -> String {
        let kinds = counts(of: AuditedKind.allCases, in: results.map { $0.0.kind })
            .map { "\($0.1) \($0.0.rawValue.replacing("-", with: " "))" }
        let codes = counts(of: AuditFinding.Code.allCases, in: results.flatMap { $0.1.map(\.code) }).map { "\($0.1) \($0.0.rawValue)" }
        let flagged = results.filter { !$0.1.isEmpty }.count
        let labels = labelCounts(results).map { "'\($0.0)' \($0.1)" }
        return "\(results.count) file\(results.count == 1 ? "" : "s"): " + (kinds.isEmpty ? "none" : kinds.joined(separator: ", "))
            + (labels.isEmpty ? "" : "; the key of each from the ring: " + labels.joined(separator: ", "))
            + "; \(flagged) with findings" + (codes.isEmpty ? "" : " (" + codes.joined(separator: ", ") + ")") + "\n"
    }

    /// `{"summary": {"files", "with_findings", "kinds": {…}, "findings": {…}}}`.
    static func summaryJSON(_ results: [(FileAudit, [AuditFinding])]) -> JSONValue {
        let kinds = counts(of: AuditedKind.allCases, in: results.map { $0.0.kind })
        let codes = counts(of: AuditFinding.Code.allCases, in: results.flatMap { $0.1.map(\.code) })
        return .object([("summary", .object([
            ("files", .integer(results.count)),
            ("with_findings", .integer(results.filter { !$0.1.isEmpty }.count)),
            ("kinds", .object(kinds.map { ($0.0.rawValue, .integer($0.1)) })),
            ("findings", .object(codes.map { ($0.0.rawValue, .integer($0.1)) })),
            ("key_labels", .object(labelCounts(results).map { ($0.0, .integer($0.1)) })),
        ]))])
    }

    /// How many files each key ring entry opened, in the order they first did.
    private static func labelCounts(_ results: [(FileAudit, [AuditFinding])]) -> [(String, Int)] {
        var counts: [(String, Int)] = []
        for label in results.compactMap({ $0.0.keyLabel }) {
            if let index = counts.firstIndex(where: { $0.0 == label }) { counts[index].1 += 1 } else { counts.append((label, 1)) }
        }
        return counts
    }

    /// How often each of `cases` occurs in `values`, in the cases' order, leaving out those that do not.
    private static func counts<T: Equatable>(of cases: [T], in values: [T]) -> [(T, Int)] {
        cases.map { item in (item, values.filter { $0 == item }.count) }.filter { $0.1 > 0 }
    }

    private static func withoutTrailingSpaces(_ line: String) -> String {
        String(line[..<(line.lastIndex { $0 != " " }.map { line.index(after: $0) } ?? line.startIndex)])
    }

    /// A path with its control characters escaped, so one file is one line.
    private static func printable(_ path: String) -> String {
        VisibleText.escaped(path)
    }
}
