import CipherKit
import Foundation

/// Builds `CipherSettings` from the cipher options of a command line: the current ones
/// (`--page-size`), the new ones (`--new-page-size`), the destination's (`--to-page-size`) or
/// the second database's of a diff (`--other-page-size`).
enum CipherOptionsReader {
    /// The settings the options with `prefix` ("", "new-", "to-" or "other-") name; empty when
    /// none is given.
    ///
    /// - Throws: `UsageError` for a value that is not a number or name the option takes, or a
    ///   setting out of range; `CipherKitError.fileAccess` when the salt file cannot be read.
    static func settings(from arguments: ParsedArguments, prefix: String = "") throws -> CipherSettings {
        var settings = CipherSettings()
        let command = arguments.command
        let searches = prefix.isEmpty || prefix == "other-"
        func option(_ name: String) -> String { "--\(prefix)\(name)" }
        func integer(_ name: String) throws -> Int? {
            guard let text = arguments.value(option(name)) else { return nil }
            guard let value = Int(text) else {
                if name == "compat", searches { throw UsageError("\(option(name)) must be 1, 2, 3, 4 or auto", command: command) }
                if name == "compat" { throw UsageError("\(option(name)) must be 1, 2, 3, 4 or same", command: command) }
                throw UsageError("\(option(name)) needs a whole number", command: command)
            }
            return value
        }
        // "auto" searches the formats of a database that is read; the destination's "same" is
        // the source's settings, which the export reads once the source is open.
        let foundSettings = searches ? "auto" : "same"
        if arguments.value(option("compat"))?.lowercased() == foundSettings {
            settings.compatibility = nil
        } else {
            settings.compatibility = try integer("compat")
        }
        settings.pageSize = try integer("page-size")
        settings.kdfIterations = try integer("kdf-iter")
        settings.plaintextHeaderSize = try integer("plaintext-header-size")
        try readAlgorithms(from: arguments, prefix: prefix, into: &settings)
        if let salt = try readSalt(from: arguments, prefix: prefix) { settings.salt = salt }
        do {
            try settings.validate()
        } catch let error as CipherSettingsError {
            throw UsageError(error.description, command: command)
        }
        return settings
    }

    /// The named settings with `prefix`: HMAC and KDF algorithms, HMAC on or off, and the
    /// byte order of the HMAC page number.
    private static func readAlgorithms(from arguments: ParsedArguments, prefix: String, into settings: inout CipherSettings) throws {
        let command = arguments.command
        func option(_ name: String) -> String { "--\(prefix)\(name)" }
        if let name = arguments.value(option("hmac-algorithm")) {
            try readHMAC(name, option: option("hmac-algorithm"), command: command, into: &settings)
        }
        if let text = arguments.value(option("hmac")) {
            guard ["on", "off"].contains(text.lowercased()) else { throw UsageError("\(option("hmac")) must be on or off", command: command) }
            try readHMAC(text, option: option("hmac"), command: command, into: &settings)
        }
        if let name = arguments.value(option("kdf-algorithm")) {
            guard let algorithm = KDFAlgorithm(name: name) else {
                throw UsageError("\(option("kdf-algorithm")) must be PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512", command: command)
            }
            settings.kdfAlgorithm = algorithm
        }
        if let name = arguments.value(option("hmac-pgno")) {
            guard let order = HMACPageNumber(name: name) else {
                throw UsageError("\(option("hmac-pgno")) must be le, be or native", command: command)
            }
            settings.hmacPageNumber = order
        }
    }

    /// An HMAC algorithm, or none (off and on: the old `--hmac`'s values).
    private static func readHMAC(_ name: String, option: String, command: String, into settings: inout CipherSettings) throws {
        switch name.lowercased() {
        case "none", "off": settings.useHMAC = false
        case "on": settings.useHMAC = true
        default:
            guard let algorithm = HMACAlgorithm(name: name) else {
                throw UsageError("\(option) must be SHA1, SHA256, SHA512 or none", command: command)
            }
            settings.hmacAlgorithm = algorithm
        }
    }

    /// The salt `--salt` or `--salt-file` (with `prefix`) gives, if either does.
    private static func readSalt(from arguments: ParsedArguments, prefix: String) throws -> [UInt8]? {
        let command = arguments.command
        func option(_ name: String) -> String { "--\(prefix)\(name)" }
        if arguments.has(option("salt")), arguments.has(option("salt-file")) {
            throw UsageError("give the salt with \(option("salt")) or \(option("salt-file")), not both", command: command)
        }
        if let hex = arguments.value(option("salt")) {
            return try salt(hex, option: option("salt"), command: command)
        }
        if let path = arguments.value(option("salt-file")) {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CipherKitError.fileAccess(path: path, reason: "cannot read the salt file")
            }
            let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return try salt(text, option: option("salt-file"), command: command)
        }
        return nil
    }

    /// The cipher options that give `settings` (complete ones, as a profile has them), the
    /// inverse of `settings(from:)`.
    static func options(pinning settings: CipherSettings) -> [String] {
        var options: [String] = []
        if let pageSize = settings.pageSize { options += ["--page-size", String(pageSize)] }
        if let iterations = settings.kdfIterations { options += ["--kdf-iter", String(iterations)] }
        if let algorithm = settings.kdfAlgorithm { options += ["--kdf-algorithm", algorithm.rawValue] }
        if settings.useHMAC == false {
            options += ["--hmac-algorithm", "none"]
        } else {
            if let algorithm = settings.hmacAlgorithm { options += ["--hmac-algorithm", algorithm.shortName] }
            if let order = settings.hmacPageNumber, order != .littleEndian { options += ["--hmac-pgno", order.rawValue] }
        }
        return options
    }

    private static func salt(_ text: String, option: String, command: String) throws -> [UInt8] {
        var digits = text
        if digits.hasPrefix("x'") || digits.hasPrefix("X'"), digits.hasSuffix("'"), digits.count >= 3 {
            digits = String(digits.dropFirst(2).dropLast())
        }
        guard let bytes = Hex.decode(digits), bytes.count == 16 else {
            throw UsageError("\(option): a salt must be 32 hex digits (16 bytes)", command: command)
        }
        return bytes
    }
}
