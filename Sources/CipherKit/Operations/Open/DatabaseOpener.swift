import FoundationEssentials
import CSQLCipher

/// Opens an existing database with a key and settings, proves the key by reading the
/// schema, and turns SQLite's single "file is not a database" into the cause the file shows.
public enum DatabaseOpener {
    /// The plaintext header size assumed for a file that shows one when none is given: the
    /// size SQLCipher recommends.
    public static let defaultPlaintextHeaderSize = 32

    /// Opens `request.path`, which must exist, and proves the key.
    ///
    /// With a key and no format setting (`CipherSettings.specifiesFormat`), the formats of
    /// `CipherFormat.searchOrder` are tried in turn, each with a fresh read-only or read-write
    /// connection that only reads, so the search never writes to the file. A passphrase is
    /// derived once per set of KDF parameters (SQLCipher 1 and 2 share one) and the formats
    /// are tried with the raw key. Given settings derive it once too: the opened database keeps
    /// the raw key that opened it, so later reopens with `OpenedDatabase.key` derive nothing.
    /// `probed` is the probe of the file when the caller already made one.
    ///
    /// - Throws: `CipherKitError` (`fileNotFound`, `notARegularFile`, `cannotDecrypt`, `busy`,
    ///   `fileAccess`, `hotJournal`, `database`), `CipherSettingsError` for settings out of range.
    public static func open(_ request: OpenRequest, probed: DatabaseFile? = nil) throws -> OpenedDatabase {
        let file = try precheck(request, probed: probed)
        let walked = try refuseDroppedCommits(request, file: file)
        try refuseForeignCompanions(request, file: file, walked: walked)
        // The closure always opens (or throws): nil never comes back.
        return try opening(request) { try open($0, file: file, walked: walked) }!
    }

    /// Runs `body`, which opens the file, with the request as the open needs it (a look that
    /// leaves every file alone holds a reader's lock: `untouchedRead`), and completes what it
    /// opened; nil when `body` opened nothing.
    static func opening(_ request: OpenRequest, _ body: (OpenRequest) throws -> OpenedDatabase?) throws -> OpenedDatabase? {
        var request = request
        var lock: ReaderLock?
        let shmExisted = FileOperations.exists(request.path + "-shm")
        let walTail = request.mode == .readWrite ? WALTail(beside: request.path) : nil
        let staleSharedMemory = request.mode == .readWrite && shmExisted ? StaleSharedMemory(beside: request.path) : nil
        let walFilesExisted = shmExisted || FileOperations.exists(request.path + "-wal")
        let journalExisted = FileOperations.exists(request.path + "-journal")
        if request.leavesFilesAlone, request.mode == .readOnly, request.untouched == nil {
            (request.untouched, lock) = try untouchedRead(request)
        }
        let cleanup = request.mode != .readWrite ? nil : FailedOpenCleanup(
            path: request.path, sharedMemoryExisted: shmExisted, walFilesExisted: walFilesExisted, staleSharedMemory: staleSharedMemory)
        let made: OpenedDatabase?
        do { made = try body(request) } catch {
            cleanup?.run()
            throw error
        }
        guard var opened = made else { return nil }
        opened.connection.readerLock = lock
        opened.untouched = request.untouched
        opened.readPastHotJournal = lock?.hasHotJournal(beside: request.path) ?? false
        // Only a read-write open makes them; a look's must never send a cleaner after them.
        opened.walFilesExistedBefore = walFilesExisted || request.mode == .readOnly
        opened.sharedMemoryExistedBefore = shmExisted || request.mode == .readOnly
        opened.journalExistedBefore = journalExisted || request.mode == .readOnly
        opened.walTail = walTail
        opened.staleSharedMemory = staleSharedMemory
        return opened
    }

    /// How a read-only open leaves every file alone: through `SnapshotVFS`, which reads the
    /// last committed state whatever lies beside the file (a -wal with or without its -shm, a
    /// hot journal) and creates nothing, under a reader's lock this holds, so that a writer
    /// in rollback mode waits until the look is done and every statement sees one state.
    static func untouchedRead(_ request: OpenRequest) throws -> (SQLiteURI.Untouched?, ReaderLock?) {
        let lock = try ReaderLock(path: request.path, waitingMilliseconds: request.busyTimeoutMilliseconds)
        return (.lockedSnapshot, lock)
    }

    /// `walked` is the -wal's walk when one was made already (`refuseDroppedCommits`).
    private static func open(_ request: OpenRequest, file: DatabaseFile, walked: PageSource?) throws -> OpenedDatabase {
        var request = request
        if file.kind == .plaintextHeader, request.settings.plaintextHeaderSize == nil {
            request.settings.plaintextHeaderSize = defaultPlaintextHeaderSize
        }
        request = try pinningShownPageSize(request, file: file)
        guard let key = request.key else {
            return OpenedDatabase(connection: try open(request, checked: file), file: file, key: nil, settings: request.settings, format: nil, attempts: 1)
        }
        try refuseAnotherSalt(request, key: key, file: file)
        let salt = file.salt(under: request.settings)
        guard !request.settings.specifiesFormat else {
            return try openAsGiven(request, key: key, salt: salt, file: file, pageOne: PageOneCheck(file: file, walked: walked))
        }
        return try search(request, key: key, salt: salt, file: file, pageOne: PageOneCheck(file: file, walked: walked))
    }

    /// Opens with exactly the given settings. A passphrase is derived once, here, and opens
    /// the file as a raw key, as the search's formats do, and the opened database keeps it.
    ///
    /// Beside a -wal or a hot journal, a key that cannot decrypt page 1, or settings under which
    /// it fails its HMAC (`PageOneCheck`), get no connection, whose failure would checkpoint
    /// the -wal or roll the journal back into the file.
    private static func openAsGiven(
        _ request: OpenRequest, key: KeyMaterial, salt: [UInt8]?, file: DatabaseFile, pageOne: PageOneCheck?
    ) throws -> OpenedDatabase {
        var raw: KeyMaterial?
        if key.kind == .passphrase, let salt, salt.count == 16 {
            // The page-1 check needs the key; elsewhere SQLCipher derives it when this cannot.
            raw = pageOne == nil ? try? KeyDerivation.rawKey(for: key, salt: salt, settings: request.settings)
                : try KeyDerivation.rawKey(for: key, salt: salt, settings: request.settings)
        }
        if let pageOne, let checked = key.kind == .passphrase ? raw : key,
           !pageOne.mayOpen(with: checked) || !pageOne.proves(checked, settings: request.settings, salt: salt) {
            return try explain(request, key: key, salt: salt, file: file, failure: .cannotDecrypt(path: request.path, failure: .wrongKeyOrSettings), derived: raw)
        }
        var connecting = request
        connecting.key = raw ?? key
        do {
            let connection = try open(connecting, checked: file)
            return OpenedDatabase(connection: connection, file: file, key: connecting.key, settings: request.settings, format: nil, attempts: 1)
        } catch CipherKitError.cannotDecrypt(let path, let failure) {
            return try explain(request, key: key, salt: salt, file: file, failure: .cannotDecrypt(path: path, failure: failure), derived: raw)
        }
    }

    /// Tries every format of `CipherFormat.searchOrder` until one opens the file.
    private static func search(
        _ request: OpenRequest, key: KeyMaterial, salt: [UInt8]?, file: DatabaseFile, pageOne: PageOneCheck?
    ) throws -> OpenedDatabase {
        var derived = request.derivedKeys
        var tried: [(key: KeyMaterial, settings: CipherSettings, format: CipherFormat)] = []
        var turnedAway: [(KeyMaterial, CipherSettings)] = []
        var attempts = 0
        // Beside a -wal or hot journal, a key that cannot decrypt page 1 gets no connection (`PageOneCheck`).
        for format in CipherFormat.searchOrder {
            var candidate = request
            guard let settings = formatSettings(request, format, file: file) else { continue }
            candidate.settings = settings
            // The formats that do not match would each log a decrypt failure.
            candidate.logLevel = .none
            if key.kind == .passphrase, let salt, salt.count == 16 {
                let parameters = KeyDerivation.parameters(for: candidate.settings)
                if derived[parameters] == nil {
                    derived[parameters] = try KeyDerivation.rawKey(for: key, salt: salt, settings: candidate.settings)
                }
                candidate.key = derived[parameters]
            }
            attempts += 1
            if let pageOne, let candidateKey = candidate.key, !pageOne.mayOpen(with: candidateKey) {
                // Its derived key still names another cipher's file from page 1's bytes.
                turnedAway.append((candidateKey, candidate.settings))
                continue
            }
            if let candidateKey = candidate.key { tried.append((candidateKey, candidate.settings, format)) }
            // Tried, for a mask or damage to be found, but given no connection (`PageOneCheck.proves`).
            if let pageOne, let candidateKey = candidate.key, !pageOne.proves(candidateKey, settings: candidate.settings, salt: salt) {
                continue
            }
            do {
                let connection = try open(candidate, checked: file)
                try CipherKitError.translating(path: request.path) { try connection.setLogLevel(request.logLevel) }
                return OpenedDatabase(
                    connection: connection, file: file, key: candidate.key, settings: candidate.settings, format: format, attempts: attempts)
            } catch CipherKitError.cannotDecrypt {
                continue
            } catch CipherKitError.database(_, let error) where error.resultCode == SQLITE_CORRUPT {
                // Pages decrypted with the wrong format, where no HMAC rejects them (SQLCipher 1).
                continue
            }
        }
        for (candidateKey, settings, format) in tried {
            if let opened = try openMasked(request, key: candidateKey, settings: settings, format: format, file: file, attempts: attempts) {
                return opened
            }
        }
        if request.searchesSettings, file.kind == .opaque, !saltLost(request, key: key, file: file), let found = try searchSettings(request, key: key, file: file, attempts: attempts, derived: derived) {
            return found
        }
        try explainSearchFailure(request, key: key, tried: tried.map { ($0.key, $0.settings) }, turnedAway: turnedAway, file: file)
    }

    /// Opens a file whose probe `precheck` has already accepted, with exactly the request's
    /// key and settings, and proves the key.
    static func open(_ request: OpenRequest, checked file: DatabaseFile) throws -> Connection {
        let path = request.path
        if request.key != nil, request.settings.effective.useHMAC == false {
            try proveWithoutHMAC(request, file: file)
        }
        let connection = try CipherKitError.translating(path: path, file: file) { try connect(request) }
        do {
            try CipherKitError.translating(path: path, file: file) {
                if let key = request.key {
                    try connection.key(key)
                    try connection.apply(request.settings)
                }
            }
            try verify(connection, request: request, file: file)
            try refuseDamagedPlainHeader(request, file: file)
        } catch {
            // A connection that failed never checkpoints: SQLite copies the -wal's frames into
            // the file without the key, a damaged one (whose checksum holds) with the rest.
            connection.setCheckpointOnClose(false)
            try? connection.close()
            throw error
        }
        return connection
    }

    /// A connection to the request's file as it asks: an ordinary one, or a read that leaves
    /// every file alone (`OpenRequest.untouched`).
    private static func connect(_ request: OpenRequest) throws -> Connection {
        if let untouched = request.untouched {
            return try Connection(
                path: SQLiteURI.untouched(request.path, untouched, encrypted: request.key != nil),
                mode: untouched == .snapshotAttachingWritable ? .readWrite : .readOnly,
                busyTimeoutMilliseconds: request.busyTimeoutMilliseconds,
                logLevel: request.logLevel, uriFilenames: true, vfs: SQLiteURI.vfs(for: untouched))
        }
        return try Connection(
            path: request.path, mode: request.mode, busyTimeoutMilliseconds: request.busyTimeoutMilliseconds, logLevel: request.logLevel,
            vfs: request.coalescedIO ? CoalescingVFS.name : nil)
    }

    /// Checks what the file's bytes show against the request, before any key is tried.
    ///
    /// - Throws: `CipherKitError` for a missing, non-regular, empty or short file, a file that
    ///   is not a database, a plaintext file given a key, an encrypted file given none, and a
    ///   plaintext-header file given no salt.
    /// `probed` is the probe of the file when the caller already made one.
    public static func precheck(_ request: OpenRequest, probed: DatabaseFile? = nil) throws -> DatabaseFile {
        try request.settings.validate()
        try request.settings.validateSalt(against: request.key)
        let file = try probed ?? DatabaseFile.probe(request.path)
        let path = request.path
        try nameOtherFamily(file, key: request.key, settings: request.settings)
        try file.requireDatabase()
        // Pages under two keys: only the rotation that left them can finish or undo it.
        if RotationRecord.exists(beside: path) { throw CipherKitError.halfRotated(path: path, problem: nil) }
        switch file.kind {
        case .missing, .notRegularFile, .empty, .tooShort, .notADatabase, .sqlite3MultipleCiphers:
            break
        case .plaintext:
            if request.key != nil {
                throw CipherKitError.cannotDecrypt(path: path, failure: .plaintextDatabase)
            }
        case .plaintextHeader:
            guard let key = request.key else { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
            if request.settings.salt == nil, key.kind != .rawKeyWithSalt {
                throw CipherKitError.cannotDecrypt(path: path, failure: .plaintextHeader)
            }
        case .opaque:
            if request.key == nil { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
            // Else page 1 fails its HMAC under the right key, which reads as damage.
            if let size = request.settings.plaintextHeaderSize, size > 0 { throw CipherSettingsError.noPlaintextHeader(size) }
        }
        return file
    }

    /// With a key, a file whose plain header shows SQLite3 Multiple Ciphers' ChaCha20,
    /// wxSQLite3's AES or its SQLCipher scheme is tried (page 1's tag, or its header), and the failure names the
    /// scheme the key opens; without one, or when it does not open, `requireDatabase` names
    /// what the bytes show. A file that looks random is not tried here.
    private static func nameOtherFamily(_ file: DatabaseFile, key: KeyMaterial?, settings: CipherSettings) throws {
        guard let key, let opened = schemeTheKeyOpens(file, key: key, settings: settings) else { return }
        throw CipherKitError.cannotDecrypt(path: file.path, failure: .otherFamilyTheKeyOpens(scheme: opened))
    }

    /// The SQLite3 Multiple Ciphers scheme, with its settings, that `key` opens a file with
    /// whose plain header shows that family; nil when none does.
    static func schemeTheKeyOpens(_ file: DatabaseFile, key: KeyMaterial, settings: CipherSettings) -> String? {
        if let scheme = ChaChaImage.scheme(of: file, family: nil, given: settings), ChaChaImage.opens(file.path, key: key, scheme: scheme) {
            return scheme.summary
        }
        guard file.kind == .sqlite3MultipleCiphers else { return nil }
        if let scheme = WxImage.scheme(of: file, family: nil, key: key) { return scheme.summary }
        return SQLCipherSchemeImage.settings(of: file, given: settings, key: key).map(SQLCipherSchemeImage.summary)
    }

    /// Reads the schema of `schema` on `connection` to prove the key of the database the
    /// request names, and turns a failure into the cause the file shows.
    static func verify(_ connection: Connection, request: OpenRequest, file: DatabaseFile, schema: String = "main") throws {
        let path = request.path
        do {
            _ = try connection.scalar("SELECT count(*) FROM \(schema).sqlite_master")
        } catch let error as DatabaseError where (error.resultCode == SQLITE_ERROR || error.resultCode == SQLITE_CORRUPT) && request.key != nil {
            // SQLCipher reports some decrypt failures (a plaintext header read with the wrong
            // salt) as a plain SQL error on the first read of the schema, and a page decrypted
            // with the wrong key where no HMAC rejects it (SQLCipher 1) as a malformed one.
            throw CipherKitError.cannotDecrypt(path: path, failure: CipherKitError.decryptFailure(for: file))
        } catch let error as DatabaseError {
            throw CipherKitError.translate(error, path: path, file: file)
        }
    }
}
