/// Quoting of SQL identifiers (table and column names), and matching them as SQLite does.
public enum SQLIdentifier {
    /// `name` in double quotes, each double quote inside it doubled: `a"b` becomes `"a""b"`.
    ///
    /// See https://www.sqlite.org/lang_keywords.html
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingScalar("\"", with: "\"\"") + "\""
    }

    /// Whether SQLite takes `a` and `b` for the same name: equal but for the case of ASCII
    /// letters (SQLite folds no other letter, so `É` and `é` are two names).
    public static func matches(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
