import CCipherProvider
import Dispatch

extension KeyDerivation {
    /// A derivation an open is expected to run: a passphrase, the database's salt, and the
    /// settings whose KDF iterations and algorithm it follows.
    public struct Expected {
        let key: KeyMaterial
        let salt: [UInt8]
        let parameters: Parameters

        public init(key: KeyMaterial, salt: [UInt8], settings: CipherSettings) {
            self.key = key
            self.salt = salt
            parameters = KeyDerivation.parameters(for: settings)
        }

        /// The derivation an open of the file at `path` with `key` and `settings` runs first:
        /// the key with the salt the settings give, or the one an encrypted file without a
        /// plaintext header starts with. nil for a file with no salt to read.
        public static func opening(_ path: String, key: KeyMaterial, settings: CipherSettings) -> Expected? {
            if let salt = settings.salt { return Expected(key: key, salt: salt, settings: settings) }
            guard let salt = (try? DatabaseFile.probe(path))?.salt(under: settings) else { return nil }
            return Expected(key: key, salt: salt, settings: settings)
        }

        /// Whether the lanes derive it: a passphrase, PBKDF2-HMAC-SHA512, a 16-byte salt.
        var fitsTheLanes: Bool {
            key.kind == .passphrase && parameters.algorithm == .pbkdf2SHA512 && salt.count == 16 && parameters.iterations >= 1000
        }
    }

    /// Derives the `expected` keys ahead of the opens that will ask for them, eight at a time
    /// in the SHA-512 lanes (`cipherprovider_pbkdf2_prepare`), on up to `threads` threads: a
    /// SQLCipher 4 key in about a quarter of the time of one derived alone. An open whose
    /// derivation matches one (passphrase, salt, iterations, algorithm) takes its bytes
    /// without deriving; one that matches none derives as ever, so a wrong guess costs only
    /// time. Nothing is derived without the lanes (FIPS mode, a CPU without AVX-512).
    /// Returns how many keys were derived.
    @discardableResult
    public static func prepare(_ expected: [Expected], threads: Int) -> Int {
        guard cipherpage_sha512x8_available() == 1, CryptoMode.current != .fips else { return 0 }
        // One iteration count a call.
        let groups = Dictionary(grouping: expected.filter(\.fitsTheLanes), by: \.parameters.iterations)
        let chunks = groups.values.flatMap { group in stride(from: 0, to: group.count, by: 8).map { Array(group[$0..<min($0 + 8, group.count)]) } }
        let derived = Counter()
        let lanes = max(1, min(threads, chunks.count))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: chunks.count, by: lanes) {
                derived.add(derive(chunks[index]))
            }
        }
        return derived.value
    }

    /// Wipes every key `prepare` kept.
    public static func forgetPrepared() {
        cipherprovider_pbkdf2_forget()
    }

    /// Up to eight derivations of one iteration count, in the lanes; how many were kept.
    private static func derive(_ chunk: [Expected]) -> Int {
        // The passphrases and salts end to end, so that every pointer stays valid for the call.
        var material: [UInt8] = []
        // Room for all at once: a reallocation would leave a copy of the passphrases unwiped.
        material.reserveCapacity(chunk.reduce(0) { $0 + $1.key.codecBytes.count + 16 })
        defer { SecureBytes.wipe(&material) }
        for derivation in chunk {
            derivation.key.codecBytes.withUnsafeBytes { material.append(contentsOf: $0) }
            material.append(contentsOf: derivation.salt)
        }
        return material.withUnsafeBufferPointer { bytes in
            var offset = 0
            let kdfs = chunk.map { derivation in
                let passLength = derivation.key.codecBytes.count
                let kdf = cipherprovider_kdf(
                    pass: UnsafeRawPointer(bytes.baseAddress! + offset), pass_length: Int32(passLength),
                    salt: bytes.baseAddress! + offset + passLength, salt_length: 16,
                    iterations: Int32(derivation.parameters.iterations), digest: 512)
                offset += passLength + 16
                return kdf
            }
            return Int(cipherprovider_pbkdf2_prepare(kdfs, Int32(kdfs.count)))
        }
    }
}

/// How many keys the lanes derived, added up across threads.
private final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var total = 0

    func add(_ count: Int) {
        lock.lock()
        total += count
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }
}
