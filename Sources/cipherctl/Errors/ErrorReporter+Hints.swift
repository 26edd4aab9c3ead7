import CipherKit

extension ErrorReporter {
    /// What the user can try, in cipherctl's commands and flags, when something helps.
    /// `command` is the command that failed, where the hint depends on it.
    /// `cipher` names the cipher options of the database that failed (diff's second: "other-").
    static func hint(for error: CipherKitFailure, command: String?, cipher: CipherOptionNames = CommandCatalog.cipherNames) -> String? {
        if let hinted = error as? HintedFailure { return hinted.hint }
        return keyHint(for: error, command: command, cipher: cipher) ?? fileHint(for: error, command: command) ?? statementHint(for: error)
    }

    /// The key, the salt and the settings a database needs.
    private static func keyHint(for error: CipherKitFailure, command: String?, cipher: CipherOptionNames) -> String? {
        switch error.reason {
        case .wrongKey:
            return wrongKeyHint(for: error, cipher: cipher)
        case .noFormatMatched where CryptoMode.current == .fips:
            return "check the key and its source; FIPS mode searches no settings, so other ones must be given (\(cipher.compat), \(cipher.kdfIter), \(cipher.kdfAlgorithm), \(cipher.pageSize), \(cipher.hmacAlgorithm), \(cipher.hmacSaltMask))"
        case .fipsForbidden:
            return "FIPS mode is on (\(OutputOptions.fips.name), or OpenSSL's FIPS provider as its default); without it, such settings are accepted"
        case .noFormatMatched:
            return "check the key and its source; settings beyond the search (more than 1,000,000 KDF iterations) must be given (\(cipher.kdfIter), \(cipher.kdfAlgorithm), \(cipher.pageSize), \(cipher.hmacAlgorithm)); a SQLCipher 1 to 3 file under another PRAGMA cipher converts with 'cipherctl \(CommandCatalog.export.name)'"
        case .wrongSaltOrKey:
            return "check the salt (\(cipher.salt), \(cipher.saltFile), or the last 32 digits of a 96-digit raw key) and \(cipher.plaintextHeaderSize) (default 32), then the key"
        case .plaintextDatabase:
            return "open it without any key option"
        case .otherFamily:
            if case CipherKitError.cannotDecrypt(_, .otherCipher)? = error as? CipherKitError {
                if command == CommandCatalog.export.name {
                    return "leave out the cipher options but \(cipher.compat) 1 to 3: 'cipherctl \(CommandCatalog.export.name)' finds such a file's cipher and settings from its key"
                }
                return "'cipherctl \(CommandCatalog.export.name) SRC DEST' with its key converts it to SQLCipher 4"
            }
            if case CipherKitError.cannotDecrypt(_, .otherCipherHMACKeyUnknown)? = error as? CipherKitError {
                return "SQLCipher 3 with its PRAGMA cipher and fast_kdf_iter reads it: from there 'PRAGMA rekey' under aes-256-cbc, or sqlcipher_export(), makes a file cipherctl reads"
            }
            return "a ChaCha20, wxSQLite3 AES, RC4 or SQLite3 Multiple Ciphers SQLCipher-scheme file converts to SQLCipher with 'cipherctl \(CommandCatalog.export.name) SRC DEST' and its key; Ascon-128 and AEGIS only SQLite3 Multiple Ciphers reads"
        case .saltRequired:
            if case CipherKitError.cannotDecrypt(_, .saltDamaged)? = error as? CipherKitError {
                return "give the salt with \(cipher.salt) HEX: it is the same in a backup or copy of the database (its first 16 bytes), unless a rekey changed it"
            }
            return "give the salt from where it was stored with \(cipher.salt) HEX or \(cipher.saltFile) PATH (or a 96-digit raw key), and \(cipher.plaintextHeaderSize) N unless it is 32"
        case .saltOutsideFile:
            return "it must come from where it was stored (\(cipher.salt) or \(cipher.saltFile))"
        case .codecUnavailable:
            return "install SQLCipher 4 (Scripts/bootstrap) and rebuild"
        case .failedAfterCommit:
            return "keep the new key: the data is under it now"
        case .plaintextSource:
            let export = CommandCatalog.export.name
            return command == CommandCatalog.rekey.name
                ? "'cipherctl \(export) SRC DEST \(KeyReader(prefix: "to-").envOption) VAR' writes an encrypted copy" : "encrypt it with 'cipherctl \(export)' first"
        case .newSaltOutsideFile:
            return "rekey without \(CipherOptionNames(prefix: "new-").salt), or move it to a fully encrypted header first ('cipherctl plaintext-header DB 0') and back after the rekey"
        case .saltNotChosen:
            let written = [CommandCatalog.export.name: "to-", CommandCatalog.recover.name: "to-", CommandCatalog.rekey.name: "new-"]
            let salt = CipherOptionNames(prefix: command.flatMap { written[$0] } ?? "")
            let flags = "\(salt.salt)=HEX or \(salt.saltFile) PATH"
            return "choose the salt (\(flags), or a 96-digit raw key) and keep it with the key"
        default:
            return nil
        }
    }

    /// A key or settings that do not open the file: what to check, and what to give.
    private static func wrongKeyHint(for error: CipherKitFailure, cipher: CipherOptionNames) -> String {
        if case CipherKitError.cannotDecrypt(_, .pageSizeShownByWAL(_, let shown))? = error as? CipherKitError {
            return "give \(cipher.pageSize) \(shown): the -wal shows the page size the file was written with"
        }
        if case CipherKitError.cannotDecrypt(_, .pageSizeShownByHeader(_, let shown))? = error as? CipherKitError {
            return "give \(cipher.pageSize) \(shown), or leave the option out: the plaintext header shows the page size"
        }
        if case CipherKitError.cannotDecrypt(_, .wrongPlaintextHeaderSize(_, let opens))? = error as? CipherKitError {
            return "give \(cipher.plaintextHeaderSize) \(opens)"
        }
        if case CipherKitError.cannotDecrypt(_, .notTheRotationsKey)? = error as? CipherKitError {
            let new = CipherOptionNames(prefix: RekeyOptions.newPrefix)
            return "give the current and new keys of the run that was interrupted, and any \(new.kdfIter) or \(new.salt) it was given (the same for \(RekeyOptions.undo.name))"
        }
        if case CipherKitError.cannotDecrypt(_, .hmacKeyBeyondSearch)? = error as? CipherKitError {
            return "give the \(cipher.fastKDFIter) N or the \(cipher.hmacSaltMask) the file was written with, and the other is searched (counts 1 to 64 and round ones to 10000 are tried, with another mask those to 16)"
        }
        if case CipherKitError.cannotDecrypt(_, .wrongSaltMask(_, let opens))? = error as? CipherKitError {
            return "give \(cipher.hmacSaltMask) \(Hex.encode([opens])), or leave the option out: the key finds the mask"
        }
        if case CipherKitError.cannotDecrypt(_, .wrongKeyForScheme(let scheme))? = error as? CipherKitError, !scheme.hasPrefix("ChaCha20") {
            if scheme.hasPrefix("SQLCipher scheme") {
                return "check the key and its source; SQLCipher 4's and 3's defaults were tried, and other settings need \(cipher.kdfIter), \(cipher.hmacAlgorithm) or \(cipher.kdfAlgorithm)"
            }
            return "check the key and its source: these schemes have no KDF settings to give, and take a passphrase, not a raw key"
        }
        if case CipherKitError.cannotDecrypt(_, .wrongKeyForScheme)? = error as? CipherKitError {
            return "check the key and its source; a ChaCha20 file made with another KDF count needs \(cipher.kdfIter), and a legacy one with a page size other than 4096 \(ExportOptions.fromFamily.name) chacha20 and \(cipher.pageSize)"
        }
        return "check the key and its source; a database written with other settings needs \(cipher.compat), \(cipher.pageSize), \(cipher.kdfIter), \(cipher.hmacAlgorithm) or \(cipher.kdfAlgorithm)"
    }

    /// The file: where it is, who holds it, what state it is in.
    private static func fileHint(for error: CipherKitFailure, command: String?) -> String? {
        switch error.reason {
        case .fileNotFound:
            return "check the path; '\(CommandCatalog.open.name) \(OpenOptions.create.name)' makes a new database"
        case .fileExists:
            // Neutral: the file may be a key file (--new-key-generate), which must not be removed.
            return command == CommandCatalog.export.name
                ? "choose another path (\(ExportOptions.force.name) replaces an existing destination database); the file there is left as it is"
                : "choose another path; the file there is left as it is"
        case .busy:
            return "wait for the other process, or raise \(OutputOptions.busyTimeout.name)"
        case .hotJournal where command == CommandCatalog.shell.name:
            return "give \(ShellOptions.write.name): the shell's read-write open rolls the journal back (with the key in use before); keep the -journal file"
        case .hotJournal:
            return "a read-write open with the key in use before rolls the journal back: the interrupted command run again with the same keys, or, for another library's file, that library; keep the -journal file"
        case .damaged where error is ForeignDamage:
            return "'cipherctl \(CommandCatalog.open.name) \(OpenOptions.check.name)' and 'cipherctl \(CommandCatalog.recover.name)' read SQLCipher's own formats only, and 'cipherctl \(CommandCatalog.export.name)' copies no damaged file: restore a backup, or read what is whole with the library that wrote it"
        case .damaged where command == CommandCatalog.open.name:
            // Its own check meets the same damage: it can list no more.
            return "'cipherctl \(CommandCatalog.recover.name)' salvages every readable row into a new database"
        case .damaged:
            return error.path.map { "'cipherctl \(CommandCatalog.open.name) \($0) \(OpenOptions.check.name)' lists the damaged pages; 'cipherctl recover' salvages every readable row into a new database" }
        case .outOfSpace:
            return "free space on that file system (or raise 'ulimit -f'), then run the command again; the original is unchanged"
        case .insufficientSpace:
            return "free space on that file system, then run the command again; nothing was written"
        case .destinationIsSource:
            return "use 'cipherctl rekey' to change a database in place"
        case .symbolicLink:
            return "give the real path"
        case .destinationCompanion:
            return "write to another path, or, once no process uses the database there, remove it with its -wal, -shm and -journal"
        case .formatNotKept:
            return "give \(CipherOptionNames(prefix: "to-").compat) 4 (or 3), or leave it out: the copy is then in SQLCipher's format"
        case .changeNeedsCopy:
            return "drop \(RekeyOptions.inPlace.name) and \(RekeyOptions.lowSpace.name): the copy is verified, then renamed over the original"
        case .rotationNeedsHMAC:
            return "drop \(RekeyOptions.lowSpace.name): a verified copy is renamed over the original"
        case .rotationFinished:
            return "run it again without \(RekeyOptions.undo.name) to remove the record; then a plain rekey takes the file back to the old key"
        case .rotationOfALinkedFile:
            return "drop \(RekeyOptions.lowSpace.name): a file with other names is then rekeyed in place, through SQLite's WAL"
        case .halfRotated:
            let again = "'cipherctl \(CommandCatalog.rekey.name) DB \(RekeyOptions.lowSpace.name)' with the same old and new keys"
            return "only cipherctl can open it until " + again + " finishes the rotation (add \(RekeyOptions.undo.name) to roll it back to the old key)"
        default:
            return nil
        }
    }

    /// The SQL, the values and the rows a command was given.
    private static func statementHint(for error: CipherKitFailure) -> String? {
        switch error.reason {
        case .needsWrite:
            return "add \(QueryOptions.write.name) to run the input in one read-write transaction (VACUUM, a journal mode change or a checkpoint alone runs outside it)"
        case .mustRunAlone:
            return "run it on its own: 'cipherctl \(CommandCatalog.query.name) DB \(QueryOptions.write.name)' with that statement alone, after the others"
        case .unboundPlaceholder:
            return "give named values with \(QueryOptions.parameter.name) NAME=VALUE and '?' values with \(QueryOptions.argument.name) VALUE"
        case .unknownColumn:
            return "\(ImportOptions.alter.name) adds such a column to the table (without a type, so each value keeps its own)"
        case .doesNotFit:
            return "raise \(ImportOptions.batchSize.name) so that the first batch holds such a value (a column of mixed values gets no type), or create the table first"
        case .keyStatement:
            return "change a key with 'cipherctl rekey DB', which proves the new key before it keeps it; change settings with 'cipherctl rekey' or 'cipherctl export'"
        case .invalidValue:
            return "typed values are int:N, real:N, text:T, blob:HEX or null"
        case .invalidQuery where (error as? QueryError).map({ if case .tooManyColumns = $0 { return true } else { return false } }) ?? false:
            return "select one column (with \(QueryOptions.table.name), \(QueryOptions.columns.name) A), or print them all with \(QueryOptions.format.name) tsv"
        default:
            return nil
        }
    }
}
