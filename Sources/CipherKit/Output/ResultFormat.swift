/// The output formats of `query`.
public enum ResultFormat: String, CaseIterable, Sendable {
    /// An aligned box with a header; buffers the result set to measure it.
    case table
    /// RFC 4180, as the sqlite3 shell's `.mode csv` writes it (CRLF line ends).
    case csv
    /// Tab-separated; tabs, line breaks and backslashes in values escaped as `\t`, `\n`, `\r`, `\\`.
    case tsv
    /// Each result set one JSON array of objects, one object a line.
    case json
    /// One JSON object a line.
    case jsonl
    /// A Markdown table per result set.
    case markdown
    /// `column = value` lines, a blank line between rows.
    case line
    /// The first column of each row, unquoted, one a line.
    case value

    /// Whether the format is JSON, where NULL, numbers and blobs have their own forms.
    public var isJSON: Bool { self == .json || self == .jsonl }

    /// Whether the format has a header row that can be left out.
    public var hasHeader: Bool { self == .table || self == .csv || self == .tsv }

    /// The blob encoding used unless one is asked for: raw for csv, tsv and value (as the
    /// shell), hex for the display formats; nil for JSON, whose blobs are tagged objects
    /// (`JSONTag`) that import reads back as blobs.
    public var defaultBlobEncoding: BlobEncoding? {
        switch self {
        case .csv, .tsv, .value: return .raw
        case .json, .jsonl: return nil
        case .table, .markdown, .line: return .hex
        }
    }

    /// A writer for this format into `output`.
    public func makeWriter(output: OutputBuffer, options: ResultOptions) -> ResultWriter {
        var options = options
        if options.blobEncoding == nil { options.blobEncoding = defaultBlobEncoding }
        switch self {
        case .table: return TableResultWriter(output: output, options: options)
        case .csv: return CSVResultWriter(output: output, options: options)
        case .tsv: return TSVResultWriter(output: output, options: options)
        case .json: return JSONResultWriter(output: output, options: options, lines: false)
        case .jsonl: return JSONResultWriter(output: output, options: options, lines: true)
        case .markdown: return MarkdownResultWriter(output: output, options: options)
        case .line: return LineResultWriter(output: output, options: options)
        case .value: return ValueResultWriter(output: output, options: options)
        }
    }
}
