import CipherKit
import FoundationEssentials
import Glibc

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
        let names = CipherOptionNames(prefix: prefix)
        let searches = prefix.isEmpty || prefix == "other-"
        func integer(_ option: String) throws -> Int? {
            guard let text = arguments.value(option) else { return nil }
            guard let value = Int(text) else {
                if option == names.compat, searches { throw UsageError("\(option) must be 1, 2, 3, 4 or auto", command: command) }
                if option == names.compat { throw UsageError("\(option) must be 1, 2, 3, 4 or same", command: command) }
                throw UsageError("\(option) needs a whole number", command: command)
            }
            return value
        }
        // "auto" searches the formats of a database that is read; the destination's "same" is
        // the source's settings, which the export reads once the source is open.
        let foundSettings = searches ? "auto" : "same"
        if arguments.value(names.compat)?.lowercased() == foundSettings {
            settings.compatibility = nil
        } else {
            settings.compatibility = try integer(names.compat)
        }
        settings.pageSize = try integer(names.pageSize)
        settings.kdfIterations = try integer(names.kdfIter)
        settings.fastKDFIterations = try integer(names.fastKDFIter)
        settings.plaintextHeaderSize = try integer(names.plaintextHeaderSize)
        settings.hmacSaltMask = try mask(from: arguments, option: names.hmacSaltMask)
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
        let names = CipherOptionNames(prefix: prefix)
        if let name = arguments.value(names.hmacAlgorithm) {
            try readHMAC(name, option: names.hmacAlgorithm, command: command, into: &settings)
        }
        if let text = arguments.value(names.hmac) {
            guard ["on", "off"].contains(text.lowercased()) else { throw UsageError("\(names.hmac) must be on or off", command: command) }
            let algorithmSaysOff = settings.useHMAC == false
            if arguments.has(names.hmacAlgorithm), algorithmSaysOff != (text.lowercased() == "off") {
                throw UsageError("\(names.hmac) \(text.lowercased()) contradicts \(names.hmacAlgorithm)", command: command)
            }
            try readHMAC(text, option: names.hmac, command: command, into: &settings)
        }
        if let name = arguments.value(names.kdfAlgorithm) {
            guard let algorithm = KDFAlgorithm(name: name) else {
                throw UsageError("\(names.kdfAlgorithm) must be PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512", command: command)
            }
            settings.kdfAlgorithm = algorithm
        }
        if let name = arguments.value(names.hmacPageNumber) {
            guard let order = HMACPageNumber(name: name) else {
                throw UsageError("\(names.hmacPageNumber) must be le, be or native", command: command)
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
        let names = CipherOptionNames(prefix: prefix)
        if arguments.has(names.salt), arguments.has(names.saltFile) {
            throw UsageError("give the salt with \(names.salt) or \(names.saltFile), not both", command: command)
        }
        if let hex = arguments.value(names.salt) {
            return try salt(hex, option: names.salt, command: command)
        }
        if let path = arguments.value(names.saltFile) {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CipherKitError.fileAccess(path: path, reason: "cannot read the salt file")
            }
            let text = String(decoding: contents, as: UTF8.self).trimmingWhitespaceAndNewlines()
            return try salt(text, option: names.saltFile, command: command)
        }
        return nil
    }

    /// The byte `option` gives in two hex digits (`5b` or `0x5b`); nil when not given.
    private static func mask(from arguments: ParsedArguments, option: String) throws -> UInt8? {
        guard let text = arguments.value(option) else { return nil }
        let digits = text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text
        guard digits.count == 2, let byte = Hex.decode(digits)?.first else {
            throw UsageError("\(option) needs one byte in two hex digits, such as 3a", command: arguments.command)
        }
        return byte
    }

    /// The cipher options that give `settings` (complete ones, as a profile has them), the
    /// inverse of `settings(from:)`.
    static func options(pinning settings: CipherSettings) -> [String] {
        let names = CipherOptionNames()
        var options: [String] = []
        if let pageSize = settings.pageSize { options += [names.pageSize, String(pageSize)] }
        // A file that shows a plaintext header is opened with SQLCipher's recommended 32 unless told.
        if let size = settings.plaintextHeaderSize, size > 0, size != DatabaseOpener.defaultPlaintextHeaderSize {
            options += [names.plaintextHeaderSize, String(size)]
        }
        if let iterations = settings.kdfIterations { options += [names.kdfIter, String(iterations)] }
        if let fast = settings.fastKDFIterations, fast != 2 { options += [names.fastKDFIter, String(fast)] }
        if let mask = settings.hmacSaltMask, mask != 0x3a { options += [names.hmacSaltMask, Hex.encode([mask])] }
        if let algorithm = settings.kdfAlgorithm { options += [names.kdfAlgorithm, algorithm.rawValue] }
        if settings.useHMAC == false {
            options += [names.hmacAlgorithm, "none"]
        } else {
            if let algorithm = settings.hmacAlgorithm { options += [names.hmacAlgorithm, algorithm.shortName] }
            if let order = settings.hmacPageNumber, order != .littleEndian { options += [names.hmacPageNumber, order.rawValue] }
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
