/// The names of the cipher options with a prefix: `--page-size` (""), `--new-page-size`
/// ("new-"), `--to-page-size` ("to-"), `--other-page-size` ("other-").
///
/// The catalog's specs, `CipherOptionsReader` and the hints all take the names from here, so
/// that renaming one breaks the build rather than a message.
struct CipherOptionNames {
    /// "", "new-", "to-" or "other-".
    let prefix: String

    init(prefix: String = "") {
        self.prefix = prefix
    }

    var compat: String { name("compat") }
    var pageSize: String { name("page-size") }
    var kdfIter: String { name("kdf-iter") }
    var fastKDFIter: String { name("fast-kdf-iter") }
    var hmacSaltMask: String { name("hmac-salt-mask") }
    var hmacAlgorithm: String { name("hmac-algorithm") }
    var kdfAlgorithm: String { name("kdf-algorithm") }
    var hmacPageNumber: String { name("hmac-pgno") }
    var plaintextHeaderSize: String { name("plaintext-header-size") }
    var salt: String { name("salt") }
    var saltFile: String { name("salt-file") }
    /// The old spelling of `hmacAlgorithm none`: `--hmac on|off`.
    var hmac: String { name("hmac") }

    private func name(_ option: String) -> String { "--\(prefix)\(option)" }
}
