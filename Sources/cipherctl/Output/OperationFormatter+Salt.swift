import CipherKit

/// Salt and plaintext-header results: one text line or one JSON object. A salt is not
/// secret; keys never appear.
extension OperationFormatter {
    /// The salt in hex and a newline, for scripts.
    static func text(_ report: SaltReport) -> String {
        Hex.encode(report.salt) + "\n"
    }

    /// `{"path", "salt", "source"}`, with `output` when the salt was written to a file.
    static func json(_ report: SaltReport, output: String?) -> JSONValue {
        .object([
            ("path", .string(report.path)),
            ("salt", .string(Hex.encode(report.salt))),
            ("source", .string(report.source.rawValue)),
            ("output", .string(output)),
        ])
    }

    /// Whether a file has a plaintext header, from its bytes.
    static func text(headerOf file: DatabaseFile) -> String {
        switch file.kind {
        case .plaintextHeader:
            return "'\(file.path)' has a SQLCipher plaintext header: its salt is kept outside the file\n"
        case .plaintext:
            return "'\(file.path)' has no plaintext header: it is a plaintext SQLite database (not encrypted)\n"
        case .sqlite3MultipleCiphers:
            return "'\(file.path)' is a SQLite3 Multiple Ciphers database: bytes 16 to 23 of its header are plain (\(file.schemeDescription)), which SQLCipher cannot read\n"
        default:
            return "'\(file.path)' has no plaintext header: the whole file is encrypted, its salt in the first 16 bytes\n"
        }
    }

    static func json(headerOf file: DatabaseFile) -> JSONValue {
        .object([
            ("path", .string(file.path)),
            ("plaintext_header", .bool(file.kind == .plaintextHeader)),
            ("encrypted", .bool(file.kind != .plaintext)),
            ("kind", .string(file.kind.rawValue)),
        ])
    }

    /// One line for a move to or from a plaintext header, with the salt to keep.
    static func text(_ report: PlaintextHeaderReport) -> String {
        let salt = Hex.encode(report.salt)
        guard report.changed else {
            let state = report.newSize == 0 ? "no plaintext header" : "a \(report.newSize)-byte plaintext header"
            return "'\(report.path)' already has \(state); nothing changed; salt \(salt)\n"
        }
        var line: String
        if report.newSize == 0 {
            line = "moved '\(report.path)' to a fully encrypted header (the salt is in the file again): salt \(salt)"
        } else {
            line = "moved '\(report.path)' to a \(report.newSize)-byte plaintext header: salt \(salt)"
        }
        if let output = report.saltOutputPath { line += " (saved to '\(output)')" }
        if let verification = report.verification {
            line += verification.isOK ? "; verified: integrity ok, \(report.snapshot?.totalRows ?? 0) rows match" : "; verification FAILED"
        } else {
            line += "; not verified"
        }
        if report.newSize > 0 {
            let cipher = CommandCatalog.cipherNames
            line += "\nkeep the salt with the key: every open needs \(cipher.plaintextHeaderSize) \(report.newSize) and \(cipher.salt) \(salt) (or \(cipher.saltFile))"
        }
        return line + "\n"
    }

    static func json(_ report: PlaintextHeaderReport) -> JSONValue {
        .object([
            ("path", .string(report.path)),
            ("action", .string(report.changed ? "moved" : "already-done")),
            ("changed", .bool(report.changed)),
            ("old_header_size", .integer(report.oldSize)),
            ("new_header_size", .integer(report.newSize)),
            ("salt", .string(Hex.encode(report.salt))),
            ("salt_output", .string(report.saltOutputPath)),
            ("seconds", .number(report.seconds)),
            ("verification", json(report.verification)),
            ("rows", report.snapshot.flatMap { $0.rowsCounted ? .integer($0.totalRows) : nil } ?? .null),
            ("removed_leftovers", .array(report.removedLeftovers.map(JSONValue.string))),
        ])
    }
}
