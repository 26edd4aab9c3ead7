/// A command line split into words as a POSIX shell splits a simple command, with no
/// expansion at all: blanks separate words; single quotes keep everything; double quotes
/// keep everything but `\"`, `\\`, `\$` and `` \` ``; a backslash outside quotes keeps the next
/// character. For a key command template, whose placeholders are filled in each word
/// afterwards, so that no file name is ever read by a shell.
enum CommandWords {
    /// Why a line is not a list of words.
    struct Unterminated: Error {}

    /// - Throws: `Unterminated` for a quote that is not closed or a trailing backslash.
    static func split(_ line: String) throws -> [String] {
        var words: [String] = [], word = "", inWord = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                (word, inWord) = ("", false)
            case "'":
                inWord = true
                word += try until("'", in: &characters, escapes: [])
            case "\"":
                inWord = true
                word += try until("\"", in: &characters, escapes: ["\"", "\\", "$", "`"])
            case "\\":
                guard let next = characters.next() else { throw Unterminated() }
                (word, inWord) = (word + String(next), true)
            default:
                (word, inWord) = (word + String(character), true)
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The characters up to the closing `quote`, a backslash keeping any of `escapes`.
    private static func until(_ quote: Character, in characters: inout String.Iterator, escapes: Set<Character>) throws -> String {
        var text = ""
        while let character = characters.next() {
            if character == quote { return text }
            if character == "\\", !escapes.isEmpty, let next = characters.next() {
                text += escapes.contains(next) ? String(next) : "\\" + String(next)
            } else {
                text.append(character)
            }
        }
        throw Unterminated()
    }
}
