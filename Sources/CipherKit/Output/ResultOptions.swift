/// How result values are written.
public struct ResultOptions: Equatable, Sendable {
    /// Print the column names (csv, tsv, table).
    public var header: Bool
    /// How NULL prints in the text formats (JSON writes null).
    public var nullText: String
    /// How blobs print.
    public var blobEncoding: BlobEncoding

    public init(header: Bool = true, nullText: String = "", blobEncoding: BlobEncoding) {
        self.header = header
        self.nullText = nullText
        self.blobEncoding = blobEncoding
    }
}
