import CCipherProvider

/// Which code does a process's cryptography.
///
/// In `standard` mode cipherctl's own code does what OpenSSL does more slowly: its PBKDF2
/// (two hash compressions an iteration), the settings search's chains, and on CPUs that have
/// them the AES-NI block test and the SHA-512 and AES lanes of the page engine. In `fips`
/// mode every operation goes through OpenSSL's EVP interface (`EVP_KDF`, `EVP_CIPHER`,
/// `EVP_MAC`, `RAND_bytes`), so it runs inside the provider OpenSSL is configured with: its
/// FIPS provider where that is the default. The settings search does not run then, and
/// `FIPSPolicy` refuses what the mode does not allow.
///
/// The mode is the front end's to choose, once, before anything is keyed (`select`); the
/// library never reads the environment for it.
/// See https://docs.openssl.org/3.0/man7/fips_module/
public enum CryptoMode: String, Sendable, CaseIterable {
    case standard
    case fips

    /// The mode of this process: `standard` until `select(.fips)`.
    public static var current: CryptoMode { cipherprovider_fips() == 1 ? .fips : .standard }

    /// Sets the mode of this process. Call it once, before the first key is derived or
    /// database opened: connections already keyed keep the code they were keyed with.
    public static func select(_ mode: CryptoMode) {
        cipherprovider_set_fips(mode == .fips ? 1 : 0)
    }

    /// Whether OpenSSL's configuration makes its FIPS provider the default (`fips=yes` in
    /// its default properties), as `EVP_default_properties_is_fips_enabled` answers.
    public static var fipsProviderIsDefault: Bool { cipherprovider_fips_default() == 1 }

    /// Whether OpenSSL's FIPS provider is loaded, or can be through its configuration.
    public static var fipsProviderLoaded: Bool { cipherprovider_fips_provider_loaded() == 1 }
}
