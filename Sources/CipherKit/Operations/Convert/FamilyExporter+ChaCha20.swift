import CCipherProvider
import CSQLCipher
import FoundationEssentials
import Glibc

/// Out to SQLite3 Multiple Ciphers' ChaCha20 scheme (its defaults, bytes 16 to 23 plain): the
/// source is opened as every export opens it and its pages checked (`PageScan`), its rows
/// written by `sqlcipher_export()` into a plaintext database in memory with the scheme's 32
/// reserved bytes a page, which must hold what the source holds; its pages are encrypted
/// into the temporary file and fsynced, then the file is read back, every page's tag checked
/// and its plaintext compared with what was written, before the rename.
extension FamilyExporter {
    static func exportToChaCha20(_ request: ExportRequest, token: CancellationToken) throws -> ExportReport {
        let destination = request.destinationPath
        guard let key = request.destinationKey else { throw CipherKitError.crypto(operation: "ChaCha20 without a key") }
        try requireDestination(request)
        try requireMemory(for: request.source.path)
        let started = Date()
        let plain = try PlaintextCopy.make(of: request, token: token)
        let scheme = ChaChaScheme(
            kdfIterations: request.destinationSettings.kdfIterations ?? ChaChaScheme.defaults.kdfIterations, legacy: false, pageSize: plain.pageSize)
        let codec = try ChaChaCodec(key: key, salt: KeyDerivation.randomSalt(), scheme: scheme)
        let temporary = TemporaryDatabase.path(beside: destination)
        do {
            try writeEncrypted(plain.bytes, codec: codec, to: temporary, reportedPath: destination)
            try token.check(request.source.path)
            let written = Date()
            let verification = request.verify
                ? try verifyEncrypted(temporary, plain: plain.bytes, key: key, scheme: scheme, reportedPath: destination) : nil
            let verified = Date()
            try FileOperations.move(temporary, to: destination, replace: request.replaceExisting)
            do {
                try FileOperations.syncDirectory(of: destination)
            } catch {
                throw CipherKitError.afterCommit(error, path: destination, opensWith: "the destination key (\(scheme.summary))")
            }
            let bytes = FileOperations.size(of: destination) ?? 0
            return ExportReport(
                source: request.source.path, destination: destination, sourceSettings: plain.sourceSettings, destinationSettings: nil,
                pages: bytes / scheme.pageSize, bytes: bytes, seconds: written.timeIntervalSince(started),
                verificationSeconds: verified.timeIntervalSince(written), verification: verification, removedLeftovers: [], snapshot: plain.snapshot,
                sourceFormat: plain.sourceFormat, sourceFormatAttempts: plain.sourceAttempts, method: .sqlcipherExport, destinationScheme: scheme)
        } catch {
            FileOperations.removeDatabase(temporary)
            throw CipherKitError.namingOutOfSpace(error, writing: destination)
        }
    }

    /// Encrypts the plaintext pages into a new file at `path` (mode 0600), a chunk at a time, and fsyncs it.
    private static func writeEncrypted(_ plain: [UInt8], codec: ChaChaCodec, to path: String, reportedPath: String) throws {
        try FileOperations.createExclusive(path)
        guard let output = OpenFile(writing: path) else { throw CipherKitError.fileAccess(path: reportedPath, reason: "cannot open for writing") }
        let pageSize = codec.scheme.pageSize
        let count = plain.count / pageSize
        let chunk = max(1, (1 << 20) / pageSize)
        var buffer = [UInt8](repeating: 0, count: chunk * pageSize)
        do {
            for first in stride(from: 1, through: count, by: chunk) {
                let take = min(chunk, count - first + 1)
                try plain.withUnsafeBytes { from in
                    try buffer.withUnsafeMutableBytes { to in
                        try codec.encrypt(UnsafeRawBufferPointer(rebasing: from[(first - 1) * pageSize..<(first - 1 + take) * pageSize]), first: first, into: to)
                    }
                }
                try buffer.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<take * pageSize])) }
            }
            try output.synchronize()
        } catch {
            throw (error as? CipherKitError) ?? FileOperations.writeFailure(error, path: reportedPath)
        }
    }

    /// Reads the written file back: every page's tag must match, and its plaintext equal what was written, the reserve aside.
    private static func verifyEncrypted(
        _ path: String, plain: [UInt8], key: KeyMaterial, scheme: ChaChaScheme, reportedPath: String
    ) throws -> VerificationReport {
        let image: ChaChaImage
        do {
            image = try ChaChaImage.read(path, key: key, scheme: scheme)
        } catch let error as CipherKitError {
            throw CipherKitError.verificationFailed(path: reportedPath, problems: ["the written file does not read back: \(error.message)"])
        }
        let used = scheme.pageSize - Int(CHACHAPAGE_RESERVE)
        let differing = image.bytes.count != plain.count ? [0] : image.bytes.withUnsafeBytes { read in
            plain.withUnsafeBytes { written in
                (1...image.pages).filter { pgno in memcmp(read.baseAddress! + (pgno - 1) * scheme.pageSize, written.baseAddress! + (pgno - 1) * scheme.pageSize, used) != 0 }
            }
        }
        guard differing.isEmpty else {
            throw CipherKitError.verificationFailed(path: reportedPath, problems: differing.map { "page \($0) does not decrypt back to what was written" })
        }
        return .proven(pages: image.pages)
    }
}
