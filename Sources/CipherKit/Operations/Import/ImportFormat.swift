/// The input formats of an import.
public enum ImportFormat: String, CaseIterable, Sendable {
    /// RFC 4180: a header line of column names, fields quoted with `"` where needed, CRLF or LF.
    case csv
    /// Tab-separated with a header line; `\t`, `\n`, `\r` and `\\` in fields stand for
    /// tab, line feed, carriage return and backslash (as the tsv output writes them).
    case tsv
    /// One JSON array of objects.
    case json
    /// One JSON object a line.
    case jsonl
}
