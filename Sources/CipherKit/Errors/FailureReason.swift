/// A stable, machine-readable name for each kind of failure (`CipherKitFailure.reason`).
///
/// The raw values are what a front end shows scripts (as the `reason` of a JSON error);
/// they never change meaning, and new ones are only added.
public enum FailureReason: String, CaseIterable, Sendable {
    // The file itself.
    case fileNotFound = "file-not-found"
    case notARegularFile = "not-a-regular-file"
    case fileExists = "file-exists"
    case fileAccess = "file-access"
    case notADatabase = "not-a-database"
    /// An encrypted database of another family than SQLCipher's (SQLite3 Multiple Ciphers).
    case otherFamily = "other-family"
    case emptyFile = "empty-file"
    case tooShort = "too-short"
    case insufficientSpace = "insufficient-space"
    /// Work that holds the whole database in memory refused before it starts.
    case insufficientMemory = "insufficient-memory"
    case outOfSpace = "out-of-space"
    // Keys and settings.
    case wrongKey = "wrong-key"
    case noFormatMatched = "no-format-matched"
    case wrongSaltOrKey = "wrong-salt-or-key"
    case plaintextDatabase = "plaintext-database"
    case saltRequired = "salt-required"
    case keyRequired = "key-required"
    case noSalt = "no-salt"
    case saltOutsideFile = "salt-outside-file"
    case invalidKey = "invalid-key"
    case invalidSettings = "invalid-settings"
    /// What FIPS mode refuses (`FIPSRefusal`).
    case fipsForbidden = "fips-forbidden"
    // The database's state.
    case busy
    case hotJournal = "hot-journal"
    /// A low-space rotation was interrupted: pages under both keys, a record beside the file.
    case halfRotated = "half-rotated"
    case damaged
    case integrityFailed = "integrity-failed"
    case verificationFailed = "verification-failed"
    case failedAfterCommit = "failed-after-commit"
    case cancelled
    // What was asked (`Refusal`).
    case plaintextSource = "plaintext-source"
    case sameKey = "same-key"
    case newSaltOutsideFile = "new-salt-outside-file"
    case saltNotChosen = "salt-not-chosen"
    case destinationIsSource = "destination-is-source"
    case symbolicLink = "symbolic-link"
    case destinationCompanion = "destination-companion"
    case changeNeedsCopy = "change-needs-copy"
    case rotationNeedsHMAC = "rotation-needs-hmac"
    case nothingToUndo = "nothing-to-undo"
    case rotationOfALinkedFile = "rotation-of-a-linked-file"
    case rotationFinished = "rotation-finished"
    case formatNotKept = "format-not-kept"
    case needsWrite = "needs-write"
    case invalidQuery = "invalid-query"
    case mustRunAlone = "must-run-alone"
    case malformedInput = "malformed-input"
    case unknownColumn = "unknown-column"
    case doesNotFit = "does-not-fit"
    case keyStatement = "key-statement"
    case unboundPlaceholder = "unbound-placeholder"
    case invalidValue = "invalid-value"
    // The library and the system.
    case codecUnavailable = "codec-unavailable"
    case cryptoFailure = "crypto-failure"
    case sqliteError = "sqlite-error"
    case valueConversion = "value-conversion"
}
