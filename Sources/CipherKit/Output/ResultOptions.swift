/// How result values are written.
public struct ResultOptions: Equatable, Sendable {
    /// Print the column names (csv, tsv, table).
    public var header: Bool
    /// How NULL prints in the text formats (JSON writes null).
    public var nullText: String
    /// How blobs print; nil for the format's own way (`ResultFormat.defaultBlobEncoding`),
    /// which in JSON is a tagged object that says it is a blob (`JSONTag`).
    public var blobEncoding: BlobEncoding?

    public init(header: Bool = true, nullText: String = "", blobEncoding: BlobEncoding? = nil) {
        self.header = header
        self.nullText = nullText
        self.blobEncoding = blobEncoding
    }
}
