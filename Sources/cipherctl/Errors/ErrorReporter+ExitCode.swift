import CipherKit

extension ErrorReporter {
    /// The documented exit code for each kind of failure (README, help and man page list them).
    static func exitCode(for reason: FailureReason) -> ExitCode {
        switch reason {
        case .fileNotFound, .notARegularFile, .fileExists, .fileAccess, .insufficientSpace, .insufficientMemory, .outOfSpace, .destinationCompanion:
            return .fileProblem
        case .wrongKey, .noFormatMatched, .wrongSaltOrKey, .plaintextDatabase, .saltRequired, .notADatabase, .emptyFile, .tooShort, .otherFamily:
            return .cannotDecrypt
        case .busy:
            return .busy
        case .damaged, .integrityFailed, .verificationFailed:
            return .verificationFailed
        case .failedAfterCommit:
            return .committed
        case .keyRequired, .invalidKey, .invalidSettings, .fipsForbidden, .needsWrite, .invalidQuery, .mustRunAlone, .malformedInput, .unknownColumn, .doesNotFit, .keyStatement, .unboundPlaceholder, .invalidValue,
             .plaintextSource, .sameKey, .newSaltOutsideFile, .saltNotChosen, .destinationIsSource, .symbolicLink,
             .changeNeedsCopy, .rotationNeedsHMAC, .nothingToUndo, .rotationOfALinkedFile, .rotationFinished, .formatNotKept:
            return .usage
        case .halfRotated, .hotJournal, .noSalt, .saltOutsideFile, .cancelled, .codecUnavailable, .cryptoFailure, .sqliteError, .valueConversion:
            return .failure
        }
    }
}
