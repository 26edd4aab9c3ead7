/// What every error CipherKit throws says about itself, so that a front end can report any
/// of them in one way: what failed, the file it is about, and a machine-readable reason.
///
/// The library's words are bare facts (swift-format's split): `message` never names a
/// command, a flag or an environment variable, and never holds key material or a value the
/// user typed as a secret. What to try next, and the exit code, are the front end's to add,
/// keyed by `reason`.
public protocol CipherKitFailure: Error, CustomStringConvertible, Sendable {
    /// What failed: a lowercase phrase without a final period.
    var message: String { get }
    /// The file the failure is about, where there is one.
    var path: String? { get }
    /// Which failure this is, stable across releases, for scripts and for the front end.
    var reason: FailureReason { get }
}

extension CipherKitFailure {
    public var description: String { message }
}
