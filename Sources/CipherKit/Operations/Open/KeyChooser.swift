/// Finds which key of a key ring opens a database: each is tried with a look that writes
/// nothing (`OpenRequest.leavesFilesAlone`), first in the known SQLCipher formats only, then,
/// when none opened it so, each again with the settings search, so that a ring of many keys
/// pays the search only for a file no quick try opens.
public enum KeyChooser {
    /// The first key of `candidates`, in their order, that opens `request`'s file with its
    /// settings. A key that proves the file damaged (`damagedPages`), or that opens it under
    /// another `PRAGMA cipher` or family (`otherCipher`, `otherFamilyTheKeyOpens`), or that
    /// decrypts page 1 under settings it was not given (`DecryptFailure.provesTheKey`), is the
    /// file's key. For a half-rotated file, the key the rotation goes on with
    /// (`chooseForHalfRotated`).
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`noKeyOfTheRing`) when none opens it, or, for
    ///   a file whose header shows another family, what the header tells (`otherFamily`); any
    ///   other failure of an open (a missing file, a lock) as it comes.
    public static func choose(_ request: OpenRequest, from candidates: [LabeledKey]) throws -> LabeledKey {
        if let found = try chooseForHalfRotated(request.path, from: candidates) { return found }
        var look = request
        look.mode = .readOnly
        look.leavesFilesAlone = true
        var shownByHeader: CipherKitError?
        for searches in request.searchesSettings ? [false, true] : [false] {
            look.searchesSettings = searches
            if let found = try firstOpening(look, candidates, shownByHeader: &shownByHeader) { return found }
        }
        throw shownByHeader ?? CipherKitError.cannotDecrypt(path: request.path, failure: .noKeyOfTheRing(keys: candidates.count))
    }

    private static func firstOpening(_ look: OpenRequest, _ candidates: [LabeledKey], shownByHeader: inout CipherKitError?) throws -> LabeledKey? {
        for candidate in candidates {
            var attempt = look
            attempt.key = candidate.key
            do {
                _ = try DatabaseOpener.open(attempt)
                return candidate
            } catch CipherKitError.cannotDecrypt(_, let failure) where failure.provesTheKey {
                // It decrypts page 1 under other settings: the caller's own open names them.
                return candidate
            } catch CipherKitError.cannotDecrypt(_, let failure) where [.wrongKey, .noFormatMatched, .wrongSaltOrKey].contains(failure.reason) {
                continue
            } catch CipherKitError.cannotDecrypt(let path, .otherFamily(let scheme)) {
                // Another family's header, which this key does not open: the next may.
                shownByHeader = .cannotDecrypt(path: path, failure: .otherFamily(scheme: scheme))
                continue
            } catch CipherKitError.damagedPages {
                return candidate
            } catch CipherKitError.cannotDecrypt(_, .otherCipher), CipherKitError.cannotDecrypt(_, .otherFamilyTheKeyOpens), is ForeignDamage {
                // It opens the file in another cipher or family: the caller's own open names it, and an export converts it.
                return candidate
            }
        }
        return nil
    }
}
