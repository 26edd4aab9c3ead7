import Foundation

/// Finds the functions of a Swift or C source file well enough for a layout rule: where each
/// starts, how many lines its body holds and how many parameters it takes. Comments and the
/// insides of string and character literals are blanked first, so that a brace or a comma
/// in them counts for nothing.
struct FunctionScanner {
    struct Function: Equatable {
        let name: String
        /// The line of its name, from 1.
        let line: Int
        /// The lines strictly between the line of its opening brace and that of its closing one.
        let bodyLines: Int
        let parameters: Int
    }

    enum Language {
        case swift, c
    }

    let language: Language

    func functions(in source: String) -> [Function] {
        let code = Array(SourceBlanker(language: language).blank(source).utf8)
        switch language {
        case .swift: return swiftFunctions(in: code)
        case .c: return cFunctions(in: code)
        }
    }

    // MARK: Swift

    private static let swiftDeclaration = try! NSRegularExpression(
        pattern: #"\b(?:func\s+([^\s(<]+)|(init)[?!]?|(subscript))\s*(?:<[^{}()]*>)?\s*\("#)

    private func swiftFunctions(in code: [UInt8]) -> [Function] {
        let text = String(decoding: code, as: UTF8.self)
        let matches = Self.swiftDeclaration.matches(in: text, range: NSRange(text.startIndex..., in: text))
        return matches.compactMap { match in
            let nameRange = (1...3).map { match.range(at: $0) }.first { $0.location != NSNotFound }!
            let name = (text as NSString).substring(with: nameRange)
            // The blanked text is ASCII, so its UTF-16 offsets are its byte offsets.
            let open = match.range.upperBound - 1
            return function(named: name, at: open, in: code, declaredAt: match.range.location)
        }
    }

    // MARK: C

    /// A definition is a `{` at file level that follows a `)`: a `struct` or an initialiser's
    /// brace follows a name or an `=`.
    private func cFunctions(in code: [UInt8]) -> [Function] {
        var found: [Function] = []
        var depth = 0
        for (offset, byte) in code.enumerated() {
            if byte == UInt8(ascii: "}") { depth -= 1; continue }
            guard byte == UInt8(ascii: "{") else { continue }
            defer { depth += 1 }
            guard depth == 0, let close = lastNonSpace(before: offset, in: code), code[close] == UInt8(ascii: ")"),
                  let open = opening(of: close, in: code), let nameEnd = lastNonSpace(before: open, in: code) else { continue }
            var nameStart = nameEnd
            while nameStart > 0, isIdentifier(code[nameStart - 1]) { nameStart -= 1 }
            let name = String(decoding: code[nameStart...nameEnd], as: UTF8.self)
            guard !["if", "while", "for", "switch"].contains(name),
                  let function = function(named: name, at: open, in: code, declaredAt: nameStart) else { continue }
            found.append(function)
        }
        return found
    }

    // MARK: Shared

    /// The function whose parameter list opens at `open`; nil when it has no body (a
    /// protocol's requirement, a C declaration).
    private func function(named name: String, at open: Int, in code: [UInt8], declaredAt start: Int) -> Function? {
        guard let close = matching(open, in: code) else { return nil }
        var brace = close + 1
        while brace < code.count, code[brace] != UInt8(ascii: "{") {
            // A `;`, `}` or another declaration before any `{`: no body here.
            if [UInt8(ascii: ";"), UInt8(ascii: "}")].contains(code[brace]) { return nil }
            if language == .swift, code[brace] == UInt8(ascii: "\n"), !continuesSignature(code, after: brace) { return nil }
            brace += 1
        }
        guard brace < code.count, let end = matching(brace, in: code) else { return nil }
        let bodyLines = max(0, line(of: end, in: code) - line(of: brace, in: code) - 1)
        return Function(name: name, line: line(of: start, in: code), bodyLines: bodyLines,
                        parameters: parameterCount(code[(open + 1)..<close]))
    }

    /// Whether the Swift line after `newline` still belongs to a signature (`throws`, `->`,
    /// `where`, or the body's brace).
    private func continuesSignature(_ code: [UInt8], after newline: Int) -> Bool {
        var index = newline + 1
        while index < code.count, code[index] == UInt8(ascii: " ") { index += 1 }
        let rest = String(decoding: code[index..<min(code.count, index + 9)], as: UTF8.self)
        return ["{", "->", "throws", "rethrows", "async", "where", "\n"].contains { rest.hasPrefix($0) }
    }

    private func parameterCount(_ list: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: list, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text != "void" else { return 0 }
        var commas = 0, depth = 0, previous: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "<"): depth += 1
            case UInt8(ascii: ">") where previous == UInt8(ascii: "-"): break
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ">"): depth -= 1
            case UInt8(ascii: ",") where depth == 0: commas += 1
            default: break
            }
            previous = byte
        }
        return commas + 1
    }

    /// The bracket that closes the `(` or `{` at `open`.
    private func matching(_ open: Int, in code: [UInt8]) -> Int? {
        let (opener, closer) = code[open] == UInt8(ascii: "(") ? (UInt8(ascii: "("), UInt8(ascii: ")")) : (UInt8(ascii: "{"), UInt8(ascii: "}"))
        var depth = 0
        for index in open..<code.count {
            if code[index] == opener { depth += 1 } else if code[index] == closer { depth -= 1 }
            if depth == 0 { return index }
        }
        return nil
    }

    /// The `(` that the `)` at `close` closes.
    private func opening(of close: Int, in code: [UInt8]) -> Int? {
        var depth = 0
        for index in stride(from: close, through: 0, by: -1) {
            if code[index] == UInt8(ascii: ")") { depth += 1 } else if code[index] == UInt8(ascii: "(") { depth -= 1 }
            if depth == 0 { return index }
        }
        return nil
    }

    private func lastNonSpace(before offset: Int, in code: [UInt8]) -> Int? {
        var index = offset - 1
        while index >= 0, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t")].contains(code[index]) { index -= 1 }
        return index >= 0 ? index : nil
    }

    private func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    private func line(of offset: Int, in code: [UInt8]) -> Int {
        code[..<offset].reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
