/// A header field an application keeps data in (`user_version`, `application_id`) whose
/// value differs between the two databases.
public struct HeaderFieldChange: Equatable, Sendable {
    /// The pragma's name.
    public let field: String
    public let first: Int
    public let second: Int
}
