import Foundation
import TestSupport

/// A random database for the dump round-trip sweep, as SQL for the sqlcipher shell: names from
/// SQL keywords, `rowid`/`oid`/`_rowid_` in any case, quotes, brackets, backticks, spaces and
/// unicode (with case clashes SQLite keeps apart); every affinity and odd type names; WITHOUT
/// ROWID, AUTOINCREMENT, INTEGER PRIMARY KEY and keys that are not the rowid; generated
/// columns; indexes, views, triggers and an FTS5 table; values from the corners of each type.
/// Everything comes from the seeded generator (no randomblob()), so a seed replays.
struct GeneratedDatabase {
    struct Column {
        let name: String
        /// Takes only integers or NULL (an INTEGER PRIMARY KEY).
        let integerOnly: Bool
        let generated: Bool
    }

    struct Table {
        let name: String
        var columns: [Column]
        let virtual: Bool
        /// A rowid alias no column takes, for a table that has a rowid.
        let rowidAlias: String?
        var autoincrement = false

        var stored: [Column] { columns.filter { !$0.generated } }
    }

    private(set) var tables: [Table] = []
    /// The cipher page size, when not SQLCipher's default.
    private(set) var pageSize: Int?
    /// The schema, the rows and the header fields, in order.
    private(set) var sql = ""
    /// Names taken in the schema's one namespace (tables, indexes, views, triggers), folded.
    private var taken = Set<String>()

    init(using random: inout SeededGenerator) {
        pageSize = [nil, nil, 1024, 8192].randomElement(using: &random)!
        sql += "PRAGMA auto_vacuum = \(Int.random(in: 0...2, using: &random));\n"
        let log = Int.random(in: 0..<3, using: &random) == 0 ? makeLogTable(using: &random) : nil
        for _ in 0..<Int.random(in: 1...4, using: &random) { makeTable(using: &random) }
        if Bool.random(using: &random) { makeFTSTable(using: &random) }
        if Int.random(in: 0..<4, using: &random) == 0 {
            // A dropped AUTOINCREMENT table leaves sqlite_sequence behind.
            let name = newName(using: &random)
            sql += "CREATE TABLE \(Self.quote(name))(id INTEGER PRIMARY KEY AUTOINCREMENT, v);\n"
            sql += "INSERT INTO \(Self.quote(name))(v) VALUES (1);\nDROP TABLE \(Self.quote(name));\n"
            taken.remove(Self.fold(name))
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) { makeIndex(using: &random) }
        if let log { for _ in 0..<Int.random(in: 1...2, using: &random) { makeTrigger(logging: log, using: &random) } }
        for table in tables { insertRows(into: table, using: &random) }
        for _ in 0..<Int.random(in: 0...2, using: &random) { makeView(using: &random) }
        finish(using: &random)
    }

    // MARK: - Names

    private static let keywords = [
        "select", "from", "where", "table", "index", "order", "group", "key", "primary", "default", "check", "values", "replace",
        "view", "trigger", "limit", "join", "as", "null", "not", "end", "begin", "commit", "transaction", "create", "drop",
        "insert", "update", "delete", "case", "when", "unique", "references", "collate", "desc", "glob", "match", "temp",
        "virtual", "without", "strict", "generated", "stored", "autoincrement", "integer", "text", "blob",
    ]
    private static let odd = [
        "a\"b", "it's", "[x]", "x]y", "`tick`", "two words", " lead", "trail ", "ünïcödé", "日本", "🎉", "e\u{301}", "É", "é",
        "a.b", "semi;colon", "dash--x", "x/*y*/", "?", ":p", "$d", "@a", "''", "\"\"", "Ω", "ω", "ß", "SS",
    ]

    /// SQLite's view of a name: ASCII letters folded, nothing else.
    static func fold(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The name quoted one of the ways SQLite takes in a CREATE statement.
    private static func spelt(_ name: String, using random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<5, using: &random) {
        case 0 where !name.contains("]"): return "[" + name + "]"
        case 1: return "`" + name.replacingOccurrences(of: "`", with: "``") + "`"
        default: return quote(name)
        }
    }

    private static func randomCase(_ word: String, using random: inout SeededGenerator) -> String {
        String(word.map { Bool.random(using: &random) ? Character($0.uppercased()) : $0 })
    }

    private static func candidate(using random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return randomCase(keywords.randomElement(using: &random)!, using: &random)
        case 1: return randomCase(["rowid", "oid", "_rowid_"].randomElement(using: &random)!, using: &random)
        case 2: return odd.randomElement(using: &random)!
        case 3: return odd.randomElement(using: &random)! + randomCase(keywords.randomElement(using: &random)!, using: &random)
        default: return "n" + String(Int.random(in: 0..<1000, using: &random))
        }
    }

    /// A schema object's name no other object has (as SQLite compares names), and that no
    /// FTS5 shadow table can take.
    private mutating func newName(using random: inout SeededGenerator) -> String {
        while true {
            let name = Self.candidate(using: &random)
            let folded = Self.fold(name)
            let shadows = ["_data", "_idx", "_content", "_docsize", "_config"]
            guard !taken.contains(folded), !shadows.contains(where: { folded.hasSuffix($0) }) else { continue }
            taken.insert(folded)
            return name
        }
    }

    /// Column names of one table: distinct as SQLite compares them.
    private static func columnNames(_ count: Int, avoiding: [String] = [], using random: inout SeededGenerator) -> [String] {
        var names: [String] = [], seen = Set(avoiding.map(fold))
        while names.count < count {
            let name = candidate(using: &random)
            if seen.insert(fold(name)).inserted { names.append(name) }
        }
        return names
    }

    // MARK: - Schema

    private static let types = [
        "INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "", "", "INT", "VARCHAR(20)", "DOUBLE PRECISION", "FLOATING POINT", "STRING",
        "BOOLEAN", "DATETIME", "CHARINT", "ANY", "UNSIGNED BIG INT", "NATIVE CHARACTER(70)", "DECIMAL(10,5)", "CLOB", "BLOBBY",
    ]

    private mutating func makeTable(using random: inout SeededGenerator) {
        let name = newName(using: &random)
        let kind = Int.random(in: 0..<6, using: &random)
        // A STRICT table takes only the types it names: ANY keeps every value as it is given.
        let strict = [0, 1, 2, 4, 5].contains(kind) && Int.random(in: 0..<4, using: &random) == 0
        let type = { (random: inout SeededGenerator) in strict ? "ANY" : Self.types.randomElement(using: &random)! }
        let count = Int.random(in: 1...4, using: &random)
        let names = Self.columnNames(count + 3, using: &random)
        var definitions: [String] = [], columns: [Column] = []
        var constraint = ""
        for (index, column) in names.prefix(count).enumerated() {
            let spelt = Self.spelt(column, using: &random)
            switch (kind, index) {
            case (1, 0), (2, 0):
                definitions.append(spelt + " INTEGER PRIMARY KEY" + (kind == 2 ? " AUTOINCREMENT" : ""))
                columns.append(Column(name: column, integerOnly: true, generated: false))
                continue
            case (3, 0):
                definitions.append(spelt + [" INTEGER PRIMARY KEY DESC", " INT PRIMARY KEY", " TEXT PRIMARY KEY", " PRIMARY KEY"].randomElement(using: &random)!)
            default:
                var definition = spelt + " " + type(&random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0: definition += " COLLATE NOCASE"
                case 1: definition += " DEFAULT " + Self.literal(using: &random, small: true)
                case 2: definition += " UNIQUE"
                case 3: definition += " NOT NULL"
                default: break
                }
                definitions.append(definition)
            }
            columns.append(Column(name: column, integerOnly: false, generated: false))
        }
        if kind == 4 || kind == 5 {
            let key = columns.prefix(Int.random(in: 1...min(2, columns.count), using: &random))
            constraint = ", PRIMARY KEY(" + key.map { Self.quote($0.name) }.joined(separator: ", ") + ")"
            // PRIMARY KEY(x) of a rowid table whose x is declared INTEGER makes x the rowid.
            if kind == 4, key.count == 1, definitions[0].hasSuffix(" INTEGER") || definitions[0].contains(" INTEGER ") {
                columns[0] = Column(name: columns[0].name, integerOnly: true, generated: false)
            }
        }
        for generated in names.dropFirst(count).prefix(Int.random(in: 0...2, using: &random)) {
            let base = Self.quote(columns.randomElement(using: &random)!.name)
            let expression = ["typeof(\(base))", "length(\(base))", "\(base) || 'x'", "coalesce(\(base), 'none')", "hex(\(base))", "\(base) * 2"]
                .randomElement(using: &random)!
            let form = ["AS", "GENERATED ALWAYS AS"].randomElement(using: &random)!
            let storage = ["", " VIRTUAL", " STORED"].randomElement(using: &random)!
            definitions.append(Self.spelt(generated, using: &random) + " " + type(&random) + " \(form) (\(expression))\(storage)")
            columns.append(Column(name: generated, integerOnly: false, generated: true))
        }
        let tableName = Int.random(in: 0..<6, using: &random) == 0 && !name.contains("'")
            ? "'" + name + "'" : Self.spelt(name, using: &random)
        let options = (kind == 5 ? ["WITHOUT ROWID"] : []) + (strict ? ["STRICT"] : [])
        sql += "CREATE TABLE \(tableName)(" + definitions.joined(separator: ", ") + constraint + ") " + options.joined(separator: ", ") + ";\n"
        let alias = kind == 5 ? nil : ["rowid", "oid", "_rowid_"].first { alias in !columns.contains { Self.fold($0.name) == alias } }
        tables.append(Table(name: name, columns: columns, virtual: false, rowidAlias: alias, autoincrement: kind == 2))
    }

    private mutating func makeLogTable(using random: inout SeededGenerator) -> Table {
        let name = newName(using: &random)
        let columns = Self.columnNames(2, avoiding: ["id"], using: &random)
        sql += "CREATE TABLE \(Self.spelt(name, using: &random))(id INTEGER PRIMARY KEY AUTOINCREMENT, \(Self.quote(columns[0])) TEXT, \(Self.quote(columns[1])));\n"
        let table = Table(name: name, columns: [Column(name: "id", integerOnly: true, generated: false)] + columns.map {
            Column(name: $0, integerOnly: false, generated: false)
        }, virtual: false, rowidAlias: ["rowid", "oid", "_rowid_"].first { alias in !columns.contains { Self.fold($0) == alias } }, autoincrement: true)
        tables.append(table)
        return table
    }

    private mutating func makeFTSTable(using random: inout SeededGenerator) {
        let name = newName(using: &random)
        // FTS5 takes no column named rowid or rank, nor one named as its table.
        var names: [String] = []
        while names.isEmpty {
            names = Self.columnNames(Int.random(in: 1...3, using: &random), avoiding: [name], using: &random)
                .filter { !["rowid", "oid", "_rowid_", "rank"].contains(Self.fold($0)) && !$0.contains("\"") && !$0.contains("'") }
        }
        sql += "CREATE VIRTUAL TABLE \(Self.quote(name)) USING fts5(" + names.map(Self.quote).joined(separator: ", ") + ");\n"
        let alias = ["rowid", "oid", "_rowid_"].first { Self.fold(name) != $0 }
        tables.append(Table(name: name, columns: names.map { Column(name: $0, integerOnly: false, generated: false) }, virtual: true, rowidAlias: alias))
    }

    private mutating func makeIndex(using random: inout SeededGenerator) {
        guard let table = tables.filter({ !$0.virtual }).randomElement(using: &random) else { return }
        let name = newName(using: &random)
        let parts = table.columns.shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)).map { column in
            let quoted = Self.quote(column.name)
            return [quoted, quoted + " DESC", quoted + " COLLATE NOCASE", "length(\(quoted))"].randomElement(using: &random)!
        }
        let unique = Int.random(in: 0..<4, using: &random) == 0 ? "UNIQUE " : ""
        let partial = Bool.random(using: &random) ? " WHERE \(Self.quote(table.columns[0].name)) IS NOT NULL" : ""
        sql += "CREATE \(unique)INDEX \(Self.spelt(name, using: &random)) ON \(Self.spelt(table.name, using: &random))(" + parts.joined(separator: ", ") + ")\(partial);\n"
    }

    private mutating func makeTrigger(logging log: Table, using random: inout SeededGenerator) {
        guard let table = tables.filter({ !$0.virtual && $0.name != log.name }).randomElement(using: &random) else { return }
        let name = newName(using: &random)
        let event = ["INSERT", "UPDATE", "DELETE"].randomElement(using: &random)!
        let row = event == "DELETE" ? "old" : "new"
        let column = Self.quote(table.columns.randomElement(using: &random)!.name)
        // OR IGNORE: a UNIQUE index may sit on the log, and a DELETE (which has no conflict
        // clause of its own to pass down) would fail on it.
        sql += """
            CREATE TRIGGER \(Self.spelt(name, using: &random)) AFTER \(event) ON \(Self.spelt(table.name, using: &random)) BEGIN
              INSERT OR IGNORE INTO \(Self.quote(log.name))(\(Self.quote(log.columns[1].name)), \(Self.quote(log.columns[2].name))) VALUES ('\(event.lowercased())', \(row).\(column));
            END;

            """
    }

    private mutating func makeView(using random: inout SeededGenerator) {
        guard let table = tables.randomElement(using: &random) else { return }
        let name = newName(using: &random)
        let column = Self.quote(table.columns.randomElement(using: &random)!.name)
        let body = ["SELECT * FROM \(Self.quote(table.name))", "SELECT \(column) AS \"as\" FROM \(Self.quote(table.name)) WHERE \(column) IS NOT NULL"]
            .randomElement(using: &random)!
        sql += "CREATE VIEW \(Self.spelt(name, using: &random)) AS \(body);\n"
    }

    // MARK: - Rows

    private mutating func insertRows(into table: Table, using random: inout SeededGenerator) {
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            var names = table.stored.map { Self.quote($0.name) }
            var values = table.stored.map {
                $0.integerOnly ? Self.integerKey(using: &random, autoincrement: table.autoincrement) : Self.value(using: &random, fts: table.virtual)
            }
            if let alias = table.rowidAlias, !table.columns.contains(where: \.integerOnly), Int.random(in: 0..<3, using: &random) == 0 {
                names.insert(alias, at: 0)
                values.insert(Self.integerKey(using: &random), at: 0)
            }
            sql += "INSERT OR IGNORE INTO \(Self.quote(table.name))(" + names.joined(separator: ", ") + ") VALUES (" + values.joined(separator: ", ") + ");\n"
        }
        if let alias = table.rowidAlias, !table.virtual, Bool.random(using: &random) {
            sql += "DELETE FROM \(Self.quote(table.name)) WHERE \(alias) % 3 = 1;\n"
        }
    }

    private mutating func finish(using random: inout SeededGenerator) {
        if sql.contains("AUTOINCREMENT"), Bool.random(using: &random) {
            sql += "UPDATE sqlite_sequence SET seq = seq + \(Int.random(in: 1...50, using: &random));\n"
        }
        if Int.random(in: 0..<4, using: &random) == 0 { sql += "ANALYZE;\n" }
        sql += "PRAGMA user_version = \(Int32.random(in: .min ... .max, using: &random));\n"
        sql += "PRAGMA application_id = \(Int32.random(in: .min ... .max, using: &random));\n"
    }

    // MARK: - One change

    /// SQL that changes one value of a copy, or (now and then) changes nothing: a value of a
    /// column (one named rowid too), a real's zero to the other sign, an integer to the same
    /// real, a composed letter to a decomposed one, a rowid, a sequence, a row deleted or a
    /// row repeated. Rows are picked by position, so that a seed replays.
    func mutation(using random: inout SeededGenerator) -> String {
        let table = tables.randomElement(using: &random)!
        let name = Self.quote(table.name)
        let offset = Int.random(in: 0..<4, using: &random)
        let target = table.stored.filter { !$0.integerOnly }.randomElement(using: &random).map { Self.quote($0.name) }
        // Virtual tables take no LIMIT on UPDATE or DELETE: their rows are picked by rowid.
        let pick = table.virtual
            ? " WHERE \(table.rowidAlias!) = (SELECT \(table.rowidAlias!) FROM \(name) LIMIT 1 OFFSET \(offset))"
            : " LIMIT 1 OFFSET \(offset)"
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where target != nil:
            let zero = Bool.random(using: &random) ? "-0.0" : "0.0"
            return "UPDATE OR IGNORE \(name) SET \(target!) = \(zero) WHERE \(target!) = 0 AND typeof(\(target!)) = 'real'"
        case 1 where target != nil:
            return "UPDATE OR IGNORE \(name) SET \(target!) = CAST(\(target!) AS REAL) WHERE typeof(\(target!)) = 'integer'"
        case 2 where target != nil:
            return "UPDATE OR IGNORE \(name) SET \(target!) = replace(\(target!), char(233), 'e' || char(769)) WHERE typeof(\(target!)) = 'text'"
        case 3 where table.rowidAlias != nil && !table.virtual:
            let alias = table.rowidAlias!
            // Toward zero, so that no rowid overflows into a real (a datatype mismatch).
            return "UPDATE OR IGNORE \(name) SET \(alias) = \(alias) - sign(\(alias)) * 1000 WHERE \(alias) = (SELECT \(alias) FROM \(name) LIMIT 1 OFFSET \(offset))"
        case 4 where sql.contains("AUTOINCREMENT"):
            return "UPDATE sqlite_sequence SET seq = seq + 1 WHERE rowid = (SELECT rowid FROM sqlite_sequence LIMIT 1 OFFSET \(offset % 2))"
        case 5:
            return "DELETE FROM \(name)" + pick
        case 6 where !table.virtual && !table.columns.contains(where: \.integerOnly):
            let stored = table.stored.map { Self.quote($0.name) }.joined(separator: ", ")
            return "INSERT OR IGNORE INTO \(name)(\(stored)) SELECT \(stored) FROM \(name) LIMIT 1 OFFSET \(offset)"
        case 7 where target != nil:
            return "UPDATE OR IGNORE \(name) SET \(target!) = \(target!)" + pick
        default:
            guard let target else { return "DELETE FROM \(name)" + pick }
            return "UPDATE OR IGNORE \(name) SET \(target) = \(Self.literal(using: &random, small: false))" + pick
        }
    }

    // MARK: - Values

    /// A rowid or INTEGER PRIMARY KEY: NULL (the next one), small, negative or extreme; never
    /// the largest for an AUTOINCREMENT key, after which the next insert fails (SQLITE_FULL).
    static func integerKey(using random: inout SeededGenerator, autoincrement: Bool = false) -> String {
        let extremes = autoincrement ? ["-9223372036854775808", "1000000"] : ["9223372036854775807", "-9223372036854775808", String(Int64.random(in: .min ... .max, using: &random))]
        return (["NULL", "NULL", String(Int.random(in: -5...50, using: &random))] + extremes).randomElement(using: &random)!
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }

    static func bytes(_ count: Int, using random: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// A value from a corner of its type, as SQL the shell stores exactly.
    static func value(using random: inout SeededGenerator, fts: Bool = false) -> String {
        if fts, Bool.random(using: &random) {
            let words = ["alpha", "beta", "gamma", "delta", "ünï", "日本", "x" + String(Int.random(in: 0..<9, using: &random))]
            return "'" + (0..<Int.random(in: 1...5, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ") + "'"
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return literal(using: &random, small: false)
        case 1: return "CAST(X'\(hex(bytes(Int.random(in: 0..<12, using: &random), using: &random)))' AS TEXT)"
        case 2:
            // Longer than a page, so the row spills to overflow pages.
            let length = Int.random(in: 1100...9000, using: &random)
            return Bool.random(using: &random)
                ? "X'\(hex(bytes(length, using: &random)))'"
                : "replace('\(String(repeating: "ab~", count: length / 3))', '~', char(\(["13, 10", "13", "10", "0"].randomElement(using: &random)!)))"
        default: return literal(using: &random, small: false)
        }
    }

    /// A literal from the corners: NULL, zeros of both signs, infinities, extreme and random
    /// integers and reals, empty text and blobs, CR, LF, CR LF, NUL, control characters, quotes,
    /// backslashes, composed and decomposed letters, text that looks like a number or a dot
    /// command. `small` keeps to constants (for DEFAULT clauses).
    static func literal(using random: inout SeededGenerator, small: Bool) -> String {
        let constants = [
            "NULL", "0", "1", "-1", "9223372036854775807", "-9223372036854775808", "9007199254740993", "0.0", "-0.0", "1.0", "1.5",
            "1e999", "-1e999", "1e308", "-1e308", "4.9406564584124654e-324", "2.2250738585072014e-308", "''", "X''", "X'00'",
            "'it''s'", "'\"q\"'", "'ünïcödé ✓ 日本 🎉'", "'café'", "' 12 '", "'1e5'", "'0x1F'", "'-0.0'", "'NaN'", "'\\r'",
        ]
        if small { return constants.randomElement(using: &random)! }
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1: return constants.randomElement(using: &random)!
        case 2: return String(Int64.random(in: .min ... .max, using: &random))
        case 3:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while !value.isFinite
            return "CAST('\(String(format: "%.17g", value))' AS REAL)"
        case 4: return "'cafe' || char(769)"
        case 5:
            let pieces = ["'a'", "char(13)", "char(10)", "char(13, 10)", "char(0)", "char(9)", "char(1)", "char(27)", "char(127)", "'\\r'", "'\\'",
                          "';'", "'.quit'", "'--'", "''''", "char(233)", "'COMMIT;'"]
            return (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined(separator: " || ")
        case 6: return "X'\(hex(bytes(Int.random(in: 0..<40, using: &random), using: &random)))'"
        default: return "'plain " + String(Int.random(in: 0..<100, using: &random)) + "'"
        }
    }
}
