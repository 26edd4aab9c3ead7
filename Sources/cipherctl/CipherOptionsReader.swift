import CipherKit
import Foundation

/// Builds `CipherSettings` from the cipher options of a command line.
enum CipherOptionsReader {
    /// The settings the options name; empty when none is given.
    ///
    /// - Throws: `UsageError` for a value that is not a number or name the option takes, or a
    ///   setting out of range; `CipherKitError.fileAccess` when the salt file cannot be read.
    static func settings(from arguments: ParsedArguments) throws -> CipherSettings {
        var settings = CipherSettings()
        let command = arguments.command
        func integer(_ option: String) throws -> Int? {
            guard let text = arguments.value(option) else { return nil }
            guard let value = Int(text) else {
                throw UsageError("\(option) needs a whole number", command: command)
            }
            return value
        }
        settings.compatibility = try integer("--compat")
        settings.pageSize = try integer("--page-size")
        settings.kdfIterations = try integer("--kdf-iter")
        settings.plaintextHeaderSize = try integer("--plaintext-header-size")
        if let name = arguments.value("--hmac-algorithm") {
            guard let algorithm = HMACAlgorithm(name: name) else {
                throw UsageError("--hmac-algorithm must be SHA1, SHA256 or SHA512", command: command)
            }
            settings.hmacAlgorithm = algorithm
        }
        if let name = arguments.value("--kdf-algorithm") {
            guard let algorithm = KDFAlgorithm(name: name) else {
                throw UsageError("--kdf-algorithm must be PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512", command: command)
            }
            settings.kdfAlgorithm = algorithm
        }
        if let text = arguments.value("--hmac") {
            switch text.lowercased() {
            case "on": settings.useHMAC = true
            case "off": settings.useHMAC = false
            default: throw UsageError("--hmac must be on or off", command: command)
            }
        }
        if arguments.has("--salt"), arguments.has("--salt-file") {
            throw UsageError("give the salt with --salt or --salt-file, not both", command: command)
        }
        if let hex = arguments.value("--salt") {
            settings.salt = try salt(hex, command: command)
        }
        if let path = arguments.value("--salt-file") {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CipherKitError.fileAccess(path: path, reason: "cannot read the salt file")
            }
            let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            settings.salt = try salt(text, command: command)
        }
        do {
            try settings.validate()
        } catch let error as CipherSettingsError {
            throw UsageError(error.description, command: command)
        }
        return settings
    }

    private static func salt(_ text: String, command: String) throws -> [UInt8] {
        var digits = text
        if digits.hasPrefix("x'") || digits.hasPrefix("X'"), digits.hasSuffix("'"), digits.count >= 3 {
            digits = String(digits.dropFirst(2).dropLast())
        }
        guard let bytes = Hex.decode(digits), bytes.count == 16 else {
            throw UsageError("a salt must be 32 hex digits (16 bytes)", command: command)
        }
        return bytes
    }
}
