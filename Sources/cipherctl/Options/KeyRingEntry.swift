/// One line of a key ring: a label, where its key is read from, and how its bytes are read.
struct KeyRingEntry {
    /// Where the key is: `env:VAR`, `file:PATH` or `cmd:COMMAND`.
    enum Source {
        case environment(String)
        case file(String)
        case command(String)
    }

    /// How the bytes are read: as a passphrase, a hex-encoded passphrase, or a raw key in hex.
    enum Encoding: String, CaseIterable {
        case passphrase, hex, raw
    }

    let label: String
    let source: Source
    /// Each is tried in turn; `passphrase` when the line names none.
    let encodings: [Encoding]
    /// The line of the ring file, for messages.
    let line: Int

    /// Parses one line that is not blank or a comment: `LABEL SOURCE [ENCODING[,ENCODING…]]`.
    /// A command runs to the end of the line, but for a last word that names encodings.
    ///
    /// - Throws: `KeyRingError` saying what is wrong (the line never holds a key).
    init(parsing text: Substring, line: Int) throws {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 2 else { throw KeyRingError(line: line, problem: "a label and a source are needed") }
        label = String(words[0])
        guard label.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }) else {
            throw KeyRingError(line: line, problem: "a label is made of letters, digits, '.', '_' and '-'")
        }
        let named = words.count >= 3 ? Self.encodings(words[words.count - 1]) : nil
        encodings = named ?? [.passphrase]
        let rest = text[words[1].startIndex..<(named == nil ? text.endIndex : words[words.count - 1].startIndex)]
        source = try Self.source(rest.trimmingWhitespace(), line: line)
        self.line = line
    }

    /// The encodings a word names (`raw`, `passphrase,hex`), or nil when it names none.
    private static func encodings(_ word: Substring) -> [Encoding]? {
        let names = word.split(separator: ",").map { Encoding(rawValue: String($0)) }
        return names.isEmpty || names.contains(nil) ? nil : names.compactMap { $0 }
    }

    private static func source(_ text: String, line: Int) throws -> Source {
        let (kind, value) = text.firstIndex(of: ":").map { (text[..<$0], String(text[text.index(after: $0)...])) } ?? ("", "")
        guard !value.isEmpty else { throw KeyRingError(line: line, problem: "the source is env:VAR, file:PATH or cmd:COMMAND") }
        switch kind {
        case "env":
            // A variable's name is one word: more after it is a word that is no encoding.
            guard !value.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw KeyRingError(line: line, problem: "after env:VAR only an encoding may follow (passphrase, hex or raw, or several with commas)")
            }
            return .environment(value)
        case "file": return .file(value)
        case "cmd":
            // A ring is read once for every file: a template would run with its braces.
            guard !KeyCommand.isTemplate(value) else {
                throw KeyRingError(line: line, problem: "a ring's command runs once for every file, so it takes no {path} or {name}; a key for each file takes --key-cmd with them")
            }
            return .command(value)
        // Not echoed: a key written in the place of its source would show.
        default: throw KeyRingError(line: line, problem: "the source is env:VAR, file:PATH or cmd:COMMAND")
        }
    }
}
