/// Quoting of SQL identifiers (table and column names).
public enum SQLIdentifier {
    /// `name` in double quotes, each double quote inside it doubled: `a"b` becomes `"a""b"`.
    ///
    /// See https://www.sqlite.org/lang_keywords.html
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
