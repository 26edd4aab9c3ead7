/// Renders help from the `CommandCatalog`, wrapped to 80 columns, in the shape users know:
/// OVERVIEW, USAGE, ARGUMENTS, option groups, EXAMPLES.
enum HelpRenderer {
    static let width = 80
    static let optionColumn = 28

    /// Help for cipherctl as a whole.
    static func main(version: String) -> String {
        var out = "OVERVIEW: cipherctl \(version): administer SQLCipher-encrypted SQLite databases.\n\n"
        out += "USAGE: cipherctl <command> [<arguments>] [<options>]\n\n"
        out += "COMMANDS:\n"
        for command in CommandCatalog.commands {
            out += entry(command.name, command.summary)
        }
        out += "\nOPTIONS:\n"
        for option in CommandCatalog.topLevelOptions {
            out += entry(option.synopsis, option.help)
        }
        out += "\n" + exitStatus()
        out += "\n" + manualPointer
        out += "See 'cipherctl help <command>' for a command's options.\n"
        return out
    }

    /// Help for one command.
    static func command(_ command: CommandSpec) -> String {
        // The discussion is the manual page's alone: help stays a screen or two.
        var out = "OVERVIEW: " + command.summary + "\n\n"
        out += usageBlock(command.usage) + "\n"
        if let note = command.note {
            out += "NOTE:\n" + wrap(note, indent: 2) + "\n"
        }
        if !command.arguments.isEmpty {
            out += "ARGUMENTS:\n"
            for argument in command.arguments {
                out += entry(argument.name, argument.help)
            }
            out += "\n"
        }
        for group in command.groups {
            out += group.title + ":\n"
            for option in group.options where !option.hidden {
                out += entry(option.synopsis, firstSentence(option.help))
            }
            out += "\n"
        }
        if !command.examples.isEmpty {
            out += "EXAMPLES:\n"
            for (line, meaning) in command.examples {
                out += wrap(meaning, indent: 2)
                out += commandLines(line)
            }
            out += "\n"
        }
        out += exitStatus()
        out += "\n" + manualPointer
        out += "See 'cipherctl help' for the other commands.\n"
        return out
    }

    static let manualPointer = "See 'man cipherctl' for the full description of every command and option.\n"

    /// An option's help up to its first full stop: the manual page has the rest.
    /// The sentence ends at the first `.`, `!` or `?` followed by a space and a capital
    /// (`[.!?] (?=[A-Z])`, by Unicode scalar); a scan, since a Regex costs more to build
    /// than the whole of `--help` to print.
    static func firstSentence(_ help: String) -> String {
        let scalars = help.unicodeScalars
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let next = scalars.index(after: index)
            if ".!?".unicodeScalars.contains(scalars[index]), next != scalars.endIndex, scalars[next] == " " {
                let capital = scalars.index(after: next)
                if capital != scalars.endIndex, ("A"..."Z").contains(scalars[capital]) {
                    return String(help.unicodeScalars[..<next])
                }
            }
            index = next
        }
        return help
    }

    /// The usage line for a command, or the general one.
    static func usageLine(for commandName: String?) -> String {
        if let name = commandName, let command = CommandCatalog.command(named: name) {
            return "usage: " + command.usage
        }
        return "usage: cipherctl <command> [<arguments>] [<options>]"
    }

    /// An example command line at four spaces, broken with ` \\` continuations to fit.
    static func commandLines(_ line: String) -> String {
        let words = line.split(separator: " ").map(String.init)
        var lines: [String] = []
        var current = "    $"
        for word in words {
            if current.count + 1 + word.count > width - 2, current.count > 6 {
                lines.append(current + " \\")
                current = "       "
            } else {
                current += " "
            }
            current += word
        }
        lines.append(current)
        return lines.map { $0 + "\n" }.joined()
    }

    /// `USAGE: …`, wrapped with continuation lines under the command.
    static func usageBlock(_ usage: String) -> String {
        let words = usage.split(separator: " ").map(String.init)
        let lead = "USAGE: " + words.prefix(2).joined(separator: " ") + " "
        let rest = wrapLines(words.dropFirst(2).joined(separator: " "), width: width - lead.count)
        return rest.enumerated().map { index, line in
            (index == 0 ? lead : String(repeating: " ", count: lead.count)) + line + "\n"
        }.joined()
    }

    static func exitStatus() -> String {
        var out = "EXIT STATUS:\n"
        for code in ExitCode.allCases {
            out += entry(String(code.rawValue), code.meaning)
        }
        return out
    }

    /// One two-column entry: the name at two spaces, the text wrapped at `optionColumn`.
    static func entry(_ name: String, _ text: String) -> String {
        let lead = "  " + name
        let lines = wrapLines(text, width: width - optionColumn)
        var out = ""
        if lead.count + 2 > optionColumn {
            out += lead + "\n"
            for line in lines { out += String(repeating: " ", count: optionColumn) + line + "\n" }
        } else {
            for (index, line) in lines.enumerated() {
                let prefix = index == 0 ? lead + String(repeating: " ", count: optionColumn - lead.count) : String(repeating: " ", count: optionColumn)
                out += prefix + line + "\n"
            }
        }
        return out
    }

    /// A paragraph wrapped to the width at `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        wrapLines(text, width: width - indent).map { String(repeating: " ", count: indent) + $0 + "\n" }.joined()
    }

    static func wrapLines(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = "", length = 0 // `line.count`, kept as it grows: counting is a walk
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let count = word.count
            if line.isEmpty {
                (line, length) = (String(word), count)
            } else if length + 1 + count <= width {
                line += " " + word
                length += 1 + count
            } else {
                lines.append(line)
                (line, length) = (String(word), count)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.isEmpty ? [""] : lines
    }
}
