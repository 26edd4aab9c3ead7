import CipherKit

/// The option groups that several commands share: key, cipher and output options.
extension CommandCatalog {
    static let helpOption = OptionSpec("--help", short: "-h", help: "Show this help and exit.")

    static let keyOptions = keyOptions(prefix: "", title: "KEY OPTIONS", purpose: "key")

    /// The names of the current cipher options, which `cipherOptions` lists.
    static let cipherNames = CipherOptionNames()

    static let cipherOptions = OptionGroup(title: "CIPHER OPTIONS", options: [
        OptionSpec(cipherNames.compat, value: "N|auto", choices: ["1", "2", "3", "4", "auto"], help: "Use SQLCipher N's default settings (1, 2, 3 or 4); other cipher options override them. The default, auto, tries SQLCipher 4, 3, 2 (HMAC page numbers little-endian, then big-endian) and 1 when no cipher option is given, then searches for the page size, HMAC, KDF algorithm and any KDF count up to 1,000,000, and reports what opened the database."),
        OptionSpec(cipherNames.pageSize, value: "N", help: "Cipher page size in bytes: a power of two from 512 to 65536 (1024 or more with page HMACs, which leave 512-byte pages too small for SQLite)."),
        OptionSpec(cipherNames.kdfIter, value: "N", help: "PBKDF2 iterations used to derive the key from a passphrase."),
        OptionSpec(cipherNames.fastKDFIter, value: "N", help: "PBKDF2 iterations from the key to the HMAC key: 2, unless the database was written under SQLCipher's deprecated PRAGMA fast_kdf_iter. Found with the key when it is 1 to 64 or a round count to 10000; give another with the file's other settings (--compat)."),
        OptionSpec(cipherNames.hmacSaltMask, value: "HEX", help: "The byte (two hex digits) the salt is XORed with for the HMAC key: 3a, unless the database was written under SQLCipher's deprecated PRAGMA cipher_hmac_salt_mask. Found with the key when not given; a wrong one given is exit 3 naming the one that opens the database. A rekey keeps the mask (--new-compat writes the default); an export leaves it behind unless --to-compat same."),
        OptionSpec(cipherNames.hmacAlgorithm, value: "NAME", choices: hmacChoices, help: "Page HMAC: SHA1, SHA256, SHA512, or none for pages without one (SQLCipher 1)."),
        OptionSpec(cipherNames.kdfAlgorithm, value: "NAME", choices: KDFAlgorithm.allCases.map(\.rawValue), help: "Key derivation: PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512."),
        OptionSpec(cipherNames.hmacPageNumber, value: "le|be|native", choices: HMACPageNumber.allCases.map(\.rawValue), help: "Byte order of the page number in each page's HMAC: be only for files SQLCipher 2.0 wrote on a big-endian machine."),
        OptionSpec(cipherNames.plaintextHeaderSize, value: "N", help: "Bytes at the start of the file kept unencrypted: 0, or a multiple of 16 (default 32 for a file that shows a plaintext header)."),
        OptionSpec(cipherNames.salt, value: "HEX", help: "The database's 16-byte salt in hex (32 digits), for a database with a plaintext header, or one whose salt bytes were lost; another salt than the one the key opens the file with is refused (exit 2)."),
        OptionSpec(cipherNames.saltFile, value: "PATH", traits: .path, help: "Read the salt, in hex, from a file."),
        oldHMACOption(prefix: cipherNames.prefix),
    ])

    /// `--hmac on|off`, the old spelling of `--hmac-algorithm none`: hidden, and read on its
    /// own so that `--hmac on --hmac-algorithm SHA256` still works.
    static func oldHMACOption(prefix: String) -> OptionSpec {
        let names = CipherOptionNames(prefix: prefix)
        return OptionSpec(names.hmac, value: "on|off", traits: .hidden, choices: ["on", "off"], help: "Also accepted: off for \(names.hmacAlgorithm) none.")
    }

    /// What `--hmac-algorithm` and its kin take: an algorithm, or none.
    static let hmacChoices = HMACAlgorithm.allCases.map(\.shortName) + ["none"]

    /// The cipher options of another database a command reads (diff's second, "other-"): each
    /// of `cipherOptions` under the prefix, so that the two lists stay in step.
    static func cipherOptions(prefix: String, title: String, of database: String) -> OptionGroup {
        OptionGroup(title: title, options: cipherOptions.options.map { option in
            option.hidden
                ? oldHMACOption(prefix: prefix)
                : OptionSpec("--\(prefix)" + option.name.dropFirst(2), value: option.valueName, traits: option.traits, choices: option.choices, help: "As \(option.name), for \(database).")
        })
    }

    /// The cipher options of a file a command writes: rekey's "new-", export's and recover's
    /// "to-". One list, so that the three families stay complete and identical.
    static func destinationCipherOptions(prefix: String, title: String, of file: String, byDefault: String) -> OptionGroup {
        let names = CipherOptionNames(prefix: prefix)
        return OptionGroup(title: title, options: [
            OptionSpec(names.compat, value: "N|same", choices: ["1", "2", "3", "4", "same"], help: "Write \(file) with SQLCipher N's default settings (1, 2, 3 or 4), or with the settings the source has (same); \(byDefault). Other --\(prefix) options override them."),
            OptionSpec(names.pageSize, value: "N", help: "Cipher page size of \(file) (1024 or more with page HMACs)."),
            OptionSpec(names.kdfIter, value: "N", help: "PBKDF2 iterations for \(file)."),
            OptionSpec(names.hmacAlgorithm, value: "NAME", choices: hmacChoices, help: "Page HMAC of \(file): SHA1, SHA256, SHA512, or none (pages any change of bytes can go unnoticed in, as SQLCipher 1 wrote)."),
            OptionSpec(names.kdfAlgorithm, value: "NAME", choices: KDFAlgorithm.allCases.map(\.rawValue), help: "Key derivation for \(file): PBKDF2_HMAC_SHA1, _SHA256 or _SHA512."),
            OptionSpec(names.hmacPageNumber, value: "le|be|native", choices: HMACPageNumber.allCases.map(\.rawValue), help: "Byte order of the page number in the page HMACs of \(file) (default le)."),
            OptionSpec(names.plaintextHeaderSize, value: "N", help: "Leave N bytes of the header of \(file) unencrypted (0 or a multiple of 16); the salt is then kept outside the file."),
            OptionSpec(names.salt, value: "HEX", traits: .optionalValue, help: "Give \(file) this salt (32 hex digits), or without a value a fresh random one."),
            OptionSpec(names.saltFile, value: "PATH", traits: .path, help: "Read the salt for \(file), in hex, from a file."),
            oldHMACOption(prefix: prefix),
        ])
    }

    /// Key options: the current key's (prefix ""), the new key's ("new-"), the destination's
    /// ("to-"), the second database's of a diff ("other-", which `generates` nothing).
    static func keyOptions(prefix: String, title: String, purpose: String, generates: Bool = true) -> OptionGroup {
        let line = prefix.isEmpty ? "the first line" : "the next line (after the current key's)"
        let names = KeyReader(prefix: prefix)
        return OptionGroup(title: title, options: [
            OptionSpec(names.envOption, value: "VAR", help: "Read the \(purpose) from environment variable VAR."),
            OptionSpec(names.fileOption, value: "PATH",
                       traits: .path, help: "Read the \(purpose) from a file; one trailing newline is dropped. Warns when the file is readable by group or others."),
            OptionSpec(names.fdOption, value: "N", help: "Read the \(purpose) from open file descriptor N, to its end; one trailing newline is dropped."),
            OptionSpec(names.stdinOption, help: "Read the \(purpose) from \(line) of standard input; on a terminal, asked for without echo."),
            OptionSpec(names.valueOption, value: "VALUE",
                       help: "Take the \(purpose) from the command line. Discouraged: other users can see it in the process list, and it stays in shell history."),
            OptionSpec(names.commandOption, value: "CMD",
                       help: "Run CMD with /bin/sh -c (standard input closed) and take its standard output as the \(purpose); one trailing newline is dropped. A failure, no output or a time-out is exit 2, naming the last line of its standard error. With {path} or {name} in CMD, it is a template run for each file: its words are split as sh splits them (quotes and backslashes, nothing expanded), the file's path, or its name without folder and extension, filled in, and the program run without a shell."),
            OptionSpec(names.rawOption, help: "The \(purpose) is a raw key in hex: 64 digits, or 96 with the salt. Anything else is refused."),
        ] + (prefix.isEmpty || prefix == "other-" ? [
            OptionSpec(names.ringOption, value: "FILE", traits: .path,
                       help: "Try each key of a key ring, in its order, and use the first that opens the file; reports name its label, never the key. One line a key: LABEL SOURCE [ENCODING], the source env:VAR, file:PATH or cmd:COMMAND, the encoding passphrase (the default), hex (a hex-encoded passphrase) or raw, or several with commas."),
        ] : []) + (prefix == RekeyOptions.newPrefix ? [
            OptionSpec(names.labelOption, value: "LABEL",
                       help: "Take the \(purpose) from the entry LABEL of the key ring --key-ring gives (one encoding); the ring's other entries are the current keys tried."),
        ] : []) + (prefix.isEmpty ? [
            KeyReader.commandTimeoutOption,
        ] : !generates ? [] : [
            OptionSpec(names.generateOption, value: "FILE",
                       traits: .path, help: "Make a random 256-bit raw key, save it to FILE (new, mode 0600, fsynced with its folder) before any database is touched, and use it: one key for every database of the run. Exit 5, with nothing changed, if FILE exists."),
        ]))
    }

    static let outputOptions = OutputOptions.group
}
