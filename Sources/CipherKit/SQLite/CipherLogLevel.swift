/// How much SQLCipher itself logs to standard error.
///
/// SQLCipher 4.6 logs every decrypt failure at ERROR level by default; CipherKit sets the
/// level on each connection before keying so that a wrong key prints nothing of its own.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_log_level
public enum CipherLogLevel: String, Sendable {
    case none = "NONE"
    case error = "ERROR"
    case warn = "WARN"
    case info = "INFO"
    case debug = "DEBUG"
    case trace = "TRACE"
}
