import CipherKit

/// The cipher options of a file a command writes (rekey's `--new-…`, export's and recover's
/// `--to-…`, which `CommandCatalog.destinationCipherOptions(prefix:)` lists), read once.
struct DestinationCipherOptions {
    /// The settings given; empty when none is (or `same` is).
    let settings: CipherSettings
    /// `--to-compat same`: the source's settings, which the operation reads once the source
    /// is open.
    let keepsSourceFormat: Bool
    /// Whether any of these options was given, `--to-compat same` included.
    let given: Bool

    /// - Throws: what `CipherOptionsReader.settings(from:prefix:)` throws.
    init(_ arguments: ParsedArguments, prefix: String) throws {
        settings = try CipherOptionsReader.settings(from: arguments, prefix: prefix)
        let compat = arguments.value(CipherOptionNames(prefix: prefix).compat)
        keepsSourceFormat = compat?.lowercased() == "same"
        given = !settings.isEmpty || compat != nil
    }
}
