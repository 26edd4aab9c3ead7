/// Finds which key of a key ring opens a database: each is tried with a look that writes
/// nothing (`OpenRequest.leavesFilesAlone`), first in the known SQLCipher formats only, then,
/// when none opened it so, each again with the settings search, so that a ring of many keys
/// pays the search only for a file no quick try opens.
public enum KeyChooser {
    /// The first key of `candidates`, in their order, that opens `request`'s file with its
    /// settings. A key that proves the file damaged (`damagedPages`), or that opens it under
    /// another `PRAGMA cipher` (`otherCipher`), is the file's key.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`noKeyOfTheRing`) when none opens it; any
    ///   other failure of an open (a missing file, a lock) as it comes.
    public static func choose(_ request: OpenRequest, from candidates: [LabeledKey]) throws -> LabeledKey {
        var look = request
        look.mode = .readOnly
        look.leavesFilesAlone = true
        for searches in request.searchesSettings ? [false, true] : [false] {
            look.searchesSettings = searches
            if let found = try firstOpening(look, candidates) { return found }
        }
        throw CipherKitError.cannotDecrypt(path: request.path, failure: .noKeyOfTheRing(keys: candidates.count))
    }

    private static func firstOpening(_ look: OpenRequest, _ candidates: [LabeledKey]) throws -> LabeledKey? {
        for candidate in candidates {
            var attempt = look
            attempt.key = candidate.key
            do {
                _ = try DatabaseOpener.open(attempt)
                return candidate
            } catch CipherKitError.cannotDecrypt(_, let failure) where [.wrongKey, .noFormatMatched, .wrongSaltOrKey].contains(failure.reason) {
                continue
            } catch CipherKitError.damagedPages {
                return candidate
            } catch CipherKitError.cannotDecrypt(_, .otherCipher), is ForeignDamage {
                // It opens the file under another cipher: the caller's own open names it, and an export converts it.
                return candidate
            }
        }
        return nil
    }
}
