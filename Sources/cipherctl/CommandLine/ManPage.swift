import FoundationEssentials
import Glibc

/// Renders the manual page, in mdoc(7), from the `CommandCatalog`: each command's summary,
/// its whole discussion (which help leaves out), every option and example, the sections
/// that belong to no command, and the exit codes from `ExitCode`. `cipherctl help --man`
/// prints it; man/cipherctl.1 is that output, checked in (Scripts/manpage rewrites it).
enum ManPage {
    /// The page's date. A fixed one, so the same catalog always makes the same page; move
    /// it on when the words change.
    static let date = "November 24, 2026"

    static func render() -> String {
        var out = ".Dd \(date)\n.Dt CIPHERCTL 1\n.Os\n"
        out += ".Sh NAME\n.Nm cipherctl\n.Nd administer SQLCipher-encrypted SQLite databases\n"
        out += ".Sh SYNOPSIS\n" + CommandCatalog.commands.map(synopsis).joined()
        out += ".Nm\n" + CommandCatalog.topLevelOptions.map { ".Op \(optionMacros($0))\n" }.joined()
        out += ".Sh DESCRIPTION\n" + paragraphs(CommandCatalog.manualDescription)
        out += ".Sh COMMANDS\n"
        for command in CommandCatalog.commands {
            out += commandSection(command)
        }
        out += sharedOptions()
        out += CommandCatalog.manualSections.map(section).joined()
        out += exitStatus()
        out += ".Sh SEE ALSO\n.Xr sqlcipher 1 ,\n.Xr sqlite3 1\n.Pp\n" + text(CommandCatalog.seeAlsoNote)
        out += CommandCatalog.manualEnd.map(section).joined()
        return out
    }

    /// The option groups that more than one command has, in the order they first appear:
    /// they are described once, under SHARED OPTIONS, and each command names them.
    static var sharedGroups: [OptionGroup] {
        let all = CommandCatalog.commands.flatMap(\.groups)
        var shared: [OptionGroup] = []
        for group in all where all.filter({ $0 == group }).count > 1 && !shared.contains(group) {
            shared.append(group)
        }
        return shared
    }

    /// `.Nm`, `.Cm name`, its arguments and its option groups, as SYNOPSIS and each
    /// command's section begin.
    static func synopsis(_ command: CommandSpec) -> String {
        var out = ".Nm\n.Cm \(command.name)\n"
        out += command.arguments.map { argumentMacros($0.name) + "\n" }.joined()
        out += command.groups.map { ".Op Ar \(escape($0.title.lowercased()))\n" }.joined()
        return out
    }

    static func commandSection(_ command: CommandSpec) -> String {
        var out = ".Ss \(command.name)\n" + synopsis(command) + ".Pp\n"
        out += paragraphs([command.summary, command.discussion])
        if !command.arguments.isEmpty {
            out += ".Bl -tag -width Ds\n"
            for argument in command.arguments {
                out += ".It \(argumentMacros(argument.name).dropFirst())\n" + text(argument.help)
            }
            out += ".El\n"
        }
        let shared = sharedGroups
        for group in command.groups where !shared.contains(group) {
            out += optionList(group)
        }
        let named = command.groups.filter(shared.contains).map { $0.title.lowercased() }
        if !named.isEmpty {
            out += ".Pp\n" + text("It also takes the \(list(named)), described under SHARED OPTIONS.")
        }
        if !command.examples.isEmpty {
            out += ".Pp\nExamples:\n.Pp\n" + command.examples.map(example).joined(separator: ".Pp\n")
        }
        return out
    }

    static func sharedOptions() -> String {
        var out = ".Sh SHARED OPTIONS\n"
        for group in sharedGroups {
            out += ".Ss \(escape(group.title.prefix(1) + group.title.dropFirst().lowercased()))\n"
            out += text("Taken by " + list(CommandCatalog.commands.filter { $0.groups.contains(group) }.map(\.name)) + ".")
            out += optionList(group, titled: false)
        }
        out += ".Ss Top-level options\n" + text("Given instead of a command.")
        out += optionList(OptionGroup(title: "", options: CommandCatalog.topLevelOptions), titled: false)
        return out
    }

    /// A group's options, each with its synopsis and its whole help.
    static func optionList(_ group: OptionGroup, titled: Bool = true) -> String {
        var out = titled ? ".Pp\n" + text(group.title.prefix(1) + group.title.dropFirst().lowercased() + ":") : ""
        out += ".Bl -tag -width Ds\n"
        for option in group.options {
            out += ".It \(optionMacros(option))\n" + text(option.help)
        }
        return out + ".El\n"
    }

    static func example(_ example: (line: String, meaning: String)) -> String {
        text(example.meaning) + ".Bd -literal -offset indent\n" + guarded(example.line.replacing("\\", with: "\\e").replacing("-", with: "\\-")) + "\n.Ed\n"
    }

    static func exitStatus() -> String {
        var out = ".Sh EXIT STATUS\n.Bl -tag -width Ds\n"
        for code in ExitCode.allCases {
            out += ".It \(code.rawValue)\n" + text(code.meaning.prefix(1).uppercased() + code.meaning.dropFirst() + ".")
        }
        return out + ".El\n" + text(CommandCatalog.exitStatusNote)
    }

    static func section(_ section: ManualSection) -> String {
        var out = ".Sh \(section.title)\n" + paragraphs(section.paragraphs)
        if !section.items.isEmpty {
            out += ".Bl -tag -width Ds\n"
            for item in section.items {
                out += ".It \(escape(item.tag))\n" + text(item.text)
            }
            out += ".El\n"
        }
        return out
    }

    /// An option as an `.It` or `.Op` argument: `Fl \-key\-env Ar VAR`, `Fl h , Fl \-help`,
    /// `Fl \-backup Ns Op = Ns Ar PATH`.
    static func optionMacros(_ option: OptionSpec) -> String {
        let names = [option.short, option.name].compactMap { $0 }.map { "Fl " + escape(String($0.dropFirst())) }.joined(separator: " , ")
        guard let value = option.valueName.map(escape) else { return names }
        return option.optionalValue ? names + " Ns Op = Ns Ar \(value)" : names + " Ar \(value)"
    }

    /// `<database>...` as `.Ar database ...`, `[<file>]` as `.Op Ar file`.
    static func argumentMacros(_ argument: String) -> String {
        let optional = argument.hasPrefix("[") && argument.hasSuffix("]")
        let bare = (optional ? String(argument.dropFirst().dropLast()) : argument)
            .replacing("<", with: "").replacing(">", with: "")
            .replacing("...", with: " ...")
        // `-- <argument>...`: the end of options as a flag, which mdoc prints as is.
        if bare.hasPrefix("-- ") {
            return (optional ? ".Op Fl \\- Ar " : ".Fl \\- Ar ") + escape(String(bare.dropFirst(3)))
        }
        return (optional ? ".Op Ar " : ".Ar ") + escape(bare)
    }

    /// Paragraphs of plain text, `.Pp` between them.
    static func paragraphs(_ texts: [String]) -> String {
        texts.map(text).joined(separator: ".Pp\n")
    }

    /// Plain text as roff text lines: each sentence on a new line, as mdoc asks, escaped,
    /// and wrapped under 80 bytes.
    static func text(_ plain: String) -> String {
        // Swift's Regex has no look-behind: the full stop is matched and put back.
        let stops = try! Regex(#"([.!?]) +(?=[A-Z])"#).matchingSemantics(.unicodeScalar) // a constant pattern
        let sentences = plain.replacing(stops) { match in (match.output[1].substring ?? "") + "\n" }
        return sentences.split(separator: "\n")
            .flatMap { HelpRenderer.wrapLines(escape($0), width: 76) }
            .map { guarded($0) + "\n" }.joined()
    }

    /// `items` as English: `a, b and c`.
    static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    /// A backslash as `\e`, and the hyphens of an option name (`--key-env`, `-h`, `sh -c`)
    /// as `\-`, so that they print as the minus a terminal copies, not as a typographic hyphen.
    static func escape<S: StringProtocol>(_ plain: S) -> String {
        let text = String(plain).replacing("\\", with: "\\e")
        let out = optionHyphensEscaped(text)
        // `name()` in running text is taken for a function without markup; `\&` keeps it text.
        let call = try! Regex(#"([A-Za-z_][A-Za-z0-9_]*)\(\)"#).matchingSemantics(.unicodeScalar) // a constant pattern
        return out.replacing(call) { ($0.output[1].substring ?? "") + "\\&()" }
    }

    /// The hyphens of each option name (`-` or `--`, a letter, then letters, digits and
    /// hyphens, not inside a word: `(?<![A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*`) as `\-`.
    private static func optionHyphensEscaped(_ text: String) -> String {
        func isWord(_ s: Unicode.Scalar) -> Bool { s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "_" || s == "-") }
        func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView(), index = 0
        while index < scalars.count {
            let dashes = scalars[index] == "-" && (index == 0 || !isWord(scalars[index - 1]))
                ? (index + 1 < scalars.count && scalars[index + 1] == "-" ? 2 : 1) : 0
            guard dashes > 0, index + dashes < scalars.count, isLetter(scalars[index + dashes]) else {
                out.append(scalars[index])
                index += 1
                continue
            }
            var end = index + dashes
            while end < scalars.count, isWord(scalars[end]), scalars[end] != "_" { end += 1 }
            for scalar in scalars[index..<end] {
                if scalar == "-" { out.append("\\") }
                out.append(scalar)
            }
            index = end
        }
        return String(out)
    }

    /// A text line that begins with `.` or `'` would be read as a request: `\&` guards it.
    static func guarded(_ line: String) -> String {
        line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }
}
