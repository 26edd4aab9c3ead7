/// Shell completion scripts for bash, zsh and fish, generated from `CommandCatalog`, so
/// they complete exactly the commands and options help and the man page describe:
/// commands, each command's options, the fixed values of options that have them,
/// environment variable names after `--key-env` and its kin, and file paths for database
/// arguments and path options.
enum CompletionScript {
    static let shells = ["bash", "zsh", "fish"]

    /// The script for `shell`, or nil for a shell not supported.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": return bash()
        case "zsh": return zsh()
        case "fish": return fish()
        default: return nil
        }
    }

    private static var commandNames: [String] { CommandCatalog.commands.map(\.name) }

    /// The command's options, `-h` and `--help` included.
    /// The options completion offers: old spellings (aliases) stay unlisted.
    private static func options(of command: CommandSpec) -> [OptionSpec] {
        command.options.filter { !$0.hidden }
    }

    /// An option's help cut to its first clause, at most 60 characters on a word boundary.
    static func shortHelp(_ option: OptionSpec) -> String {
        var text = option.help
        for separator in [". ", "; ", ": "] {
            if let range = text.firstRange(of: separator) { text = String(text[..<range.lowerBound]) }
        }
        if text.hasSuffix(".") { text.removeLast() }
        guard text.count > 60 else { return text }
        let cut = text.prefix(60)
        return (cut.lastIndex(of: " ").map { String(cut[..<$0]) } ?? String(cut)) + "…"
    }

    /// `--key-env` and its kin, whose values are environment variables' names.
    private static let environmentOptions = ["", "new-", "to-", "other-"].map { KeyReader(prefix: $0).envOption }

    private static func isEnvironmentOption(_ option: OptionSpec) -> Bool {
        environmentOptions.contains(option.name)
    }

    // MARK: bash

    /// What may come in the place of a command: `--version`, `--help`, `-h`.
    private static var topLevelWords: [String] {
        CommandCatalog.topLevelOptions.flatMap { [$0.name, $0.short].compactMap { $0 } }
    }

    private static func bash() -> String {
        var cases = ""
        for command in CommandCatalog.commands {
            let options = options(of: command)
            var valueCases = ""
            let paths = options.filter { $0.takesPath && $0.takesValue }.map(\.name)
            if !paths.isEmpty { valueCases += "                \(paths.joined(separator: "|"))) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n" }
            let environment = options.filter(isEnvironmentOption).map(\.name)
            if !environment.isEmpty { valueCases += "                \(environment.joined(separator: "|"))) COMPREPLY=($(compgen -e -- \"$cur\")); return ;;\n" }
            for option in options where !option.choices.isEmpty {
                valueCases += "                \(option.name)) COMPREPLY=($(compgen -W \"\(option.choices.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
            }
            let others = options.filter { $0.takesValue && !$0.takesPath && $0.choices.isEmpty && !isEnvironmentOption($0) }.map(\.name)
            if !others.isEmpty { valueCases += "                \(others.joined(separator: "|"))) return ;;\n" }
            let words = options.flatMap { [$0.short, $0.name].compactMap { $0 } }.joined(separator: " ")
            let positional: String
            switch command.name {
            case CommandCatalog.help.name: positional = "COMPREPLY=($(compgen -W \"\(commandNames.joined(separator: " "))\" -- \"$cur\"))"
            case CommandCatalog.completion.name: positional = "COMPREPLY=($(compgen -W \"\(shells.joined(separator: " "))\" -- \"$cur\"))"
            default: positional = "COMPREPLY=($(compgen -f -- \"$cur\"))"
            }
            cases += """
                    \(command.name))
                        case "$prev" in
            \(valueCases)            esac
                        if [[ "$cur" == -* ]]; then
                            COMPREPLY=($(compgen -W "\(words)" -- "$cur"))
                        else
                            \(positional)
                        fi
                        ;;

            """
        }
        return """
        # bash completion for cipherctl (cipherctl completion bash)
        _cipherctl() {
            local cur prev
            cur="${COMP_WORDS[COMP_CWORD]}"
            prev="${COMP_WORDS[COMP_CWORD-1]}"
            COMPREPLY=()
            if [ "$COMP_CWORD" -eq 1 ]; then
                COMPREPLY=($(compgen -W "\((commandNames + topLevelWords).joined(separator: " "))" -- "$cur"))
                return
            fi
            case "${COMP_WORDS[1]}" in
        \(cases)    esac
        }
        complete -o filenames -o bashdefault -F _cipherctl cipherctl

        """
    }

    // MARK: zsh

    /// Text safe inside a zsh `_arguments` description: brackets, colons and quotes escaped.
    private static func zshText(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacingScalar("'", with: "'\\''")
            .replacing("[", with: "\\[").replacing("]", with: "\\]")
            .replacing(":", with: "\\:")
    }

    /// One `_arguments` spec: the option's names, its help, and what completes its value.
    private static func zshSpec(_ option: OptionSpec) -> String {
        let help = zshText(shortHelp(option))
        let names = option.short.map { "(\($0) \(option.name))'{\($0),\(option.name)}'" } ?? option.name
        let prefix = option.short == nil ? "'" + (option.repeatable ? "*" : "") + names : "'" + names
        var action = ""
        if option.takesValue || option.optionalValue {
            let value = zshText(option.valueName ?? "VALUE")
            if option.takesPath {
                action = ":\(value):_files"
            } else if isEnvironmentOption(option) {
                action = ":\(value):_parameters -g '*export*'"
            } else if !option.choices.isEmpty {
                action = ":\(value):(\(option.choices.joined(separator: " ")))"
            } else {
                action = ":\(value): "
            }
            if option.optionalValue { action = ":" + action }
        }
        return prefix + "[\(help)]" + action.replacingScalar("'", with: "'\\''") + "'"
    }

    /// `_cipherctl_NAME`, completing one command's options and operands.
    private static func zshFunction(_ command: CommandSpec) -> String {
        var specs = options(of: command).map(zshSpec)
        switch command.name {
        case CommandCatalog.help.name: specs.append("'1:command:(\(commandNames.joined(separator: " ")))'")
        case CommandCatalog.completion.name: specs.append("'1:shell:(\(shells.joined(separator: " ")))'")
        default: specs.append("'*:file:_files'")
        }
        return "_cipherctl_\(command.name.replacing("-", with: "_"))() {\n    _arguments -s \\\n        "
            + specs.joined(separator: " \\\n        ") + "\n}\n\n"
    }

    // Most of it is the zsh script's own text, kept whole so that it reads as the script it writes.
    private static func zsh() -> String {
        let functions = CommandCatalog.commands.map(zshFunction).joined()
        let commandList = CommandCatalog.commands.map { "'\($0.name):\(zshText($0.summary))'" }.joined(separator: " ")
        return """
        #compdef cipherctl
        # zsh completion for cipherctl (cipherctl completion zsh)

        \(functions)_cipherctl() {
            local -a commands
            commands=(\(commandList))
            if (( CURRENT == 2 )); then
                _describe -t commands 'cipherctl command' commands
                _arguments '--version[print versions]' '(-h --help)'{-h,--help}'[show help]'
                return
            fi
            local name=${words[2]//-/_}
            shift words
            (( CURRENT-- ))
            if (( $+functions[_cipherctl_$name] )); then
                _cipherctl_$name
            else
                _files
            fi
        }

        if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
            _cipherctl "$@"
        else
            compdef _cipherctl cipherctl
        fi

        """
    }

    // MARK: fish

    private static func fishText(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacingScalar("'", with: "\\'") + "'"
    }

    private static func fish() -> String {
        var lines = [
            "# fish completion for cipherctl (cipherctl completion fish)",
            "complete -c cipherctl -f",
            "complete -c cipherctl -n __fish_use_subcommand -l version -d \(fishText("Print versions"))",
        ]
        for command in CommandCatalog.commands {
            lines.append("complete -c cipherctl -n __fish_use_subcommand -a \(command.name) -d \(fishText(command.summary))")
            let condition = "-n '__fish_seen_subcommand_from \(command.name)'"
            for option in options(of: command) {
                var line = "complete -c cipherctl \(condition) -l \(option.name.dropFirst(2))"
                if let short = option.short { line += " -s \(short.dropFirst())" }
                if option.takesValue {
                    if option.takesPath {
                        line += " -r -F"
                    } else if isEnvironmentOption(option) {
                        line += " -x -a '(set -n)'"
                    } else if !option.choices.isEmpty {
                        line += " -x -a \(fishText(option.choices.joined(separator: " ")))"
                    } else {
                        line += " -x"
                    }
                }
                line += " -d \(fishText(shortHelp(option)))"
                lines.append(line)
            }
            switch command.name {
            case CommandCatalog.help.name: lines.append("complete -c cipherctl \(condition) -a \(fishText(commandNames.joined(separator: " ")))")
            case CommandCatalog.completion.name: lines.append("complete -c cipherctl \(condition) -a \(fishText(shells.joined(separator: " ")))")
            default: lines.append("complete -c cipherctl \(condition) -F")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
