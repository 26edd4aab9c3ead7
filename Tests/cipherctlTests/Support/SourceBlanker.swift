import Foundation

/// A Swift or C source with its comments and the insides of its string and character
/// literals turned to spaces (newlines kept, so that lines and byte offsets stay where they
/// were), and every byte outside ASCII a space. What is left is code a rough scanner can
/// count braces and commas in.
struct SourceBlanker {
    let language: FunctionScanner.Language

    /// Where the blanker is: code (at the top, or inside a Swift string's `\(...)` with its
    /// parenthesis depth), a comment, or a literal.
    private enum Context {
        case interpolation(depth: Int)
        case lineComment
        case blockComment
        /// `"` or `'` (C), `"` or `"""` with a number of `#` (Swift).
        case literal(quote: [UInt8], hashes: Int)
    }

    func blank(_ source: String) -> String {
        var bytes = Array(source.utf8)
        var stack: [Context] = [.interpolation(depth: 0)]
        var index = 0
        while index < bytes.count {
            let consumed = step(&bytes, at: index, stack: &stack)
            index += max(1, consumed)
        }
        return String(decoding: bytes.map { $0 < 0x80 ? $0 : UInt8(ascii: " ") }, as: UTF8.self)
    }

    /// Handles the byte at `index` in the innermost context; returns how many bytes it took.
    private func step(_ bytes: inout [UInt8], at index: Int, stack: inout [Context]) -> Int {
        switch stack.last! {
        case .interpolation(let depth): return code(&bytes, at: index, depth: depth, stack: &stack)
        case .lineComment:
            if bytes[index] == UInt8(ascii: "\n") { stack.removeLast(); return 1 }
            bytes[index] = UInt8(ascii: " ")
            return 1
        case .blockComment:
            if starts(bytes, at: index, with: "*/") {
                stack.removeLast()
                blankRange(&bytes, index..<(index + 2))
                return 2
            }
            // Swift's block comments nest.
            if language == .swift, starts(bytes, at: index, with: "/*") {
                stack.append(.blockComment)
                blankRange(&bytes, index..<(index + 2))
                return 2
            }
            blankRange(&bytes, index..<(index + 1))
            return 1
        case .literal(let quote, let hashes): return literal(&bytes, at: index, quote: quote, hashes: hashes, stack: &stack)
        }
    }

    private func code(_ bytes: inout [UInt8], at index: Int, depth: Int, stack: inout [Context]) -> Int {
        if starts(bytes, at: index, with: "//") {
            stack.append(.lineComment)
            blankRange(&bytes, index..<(index + 2))
            return 2
        }
        if starts(bytes, at: index, with: "/*") {
            stack.append(.blockComment)
            blankRange(&bytes, index..<(index + 2))
            return 2
        }
        var hashes = 0
        if language == .swift { while index + hashes < bytes.count, bytes[index + hashes] == UInt8(ascii: "#") { hashes += 1 } }
        let quoteAt = index + hashes
        if quoteAt < bytes.count, bytes[quoteAt] == UInt8(ascii: "\"") || (language == .c && hashes == 0 && bytes[quoteAt] == UInt8(ascii: "'")) {
            let quote: [UInt8] = language == .swift && starts(bytes, at: quoteAt, with: "\"\"\"") ? Array("\"\"\"".utf8) : [bytes[quoteAt]]
            stack.append(.literal(quote: quote, hashes: hashes))
            return hashes + quote.count
        }
        if stack.count > 1, bytes[index] == UInt8(ascii: "(") { stack[stack.count - 1] = .interpolation(depth: depth + 1) }
        if stack.count > 1, bytes[index] == UInt8(ascii: ")") {
            if depth == 0 { stack.removeLast(); blankRange(&bytes, index..<(index + 1)) } else { stack[stack.count - 1] = .interpolation(depth: depth - 1) }
        }
        return max(1, hashes)
    }

    private func literal(_ bytes: inout [UInt8], at index: Int, quote: [UInt8], hashes: Int, stack: inout [Context]) -> Int {
        let hashText = [UInt8](repeating: UInt8(ascii: "#"), count: hashes)
        if starts(bytes, at: index, with: quote + hashText) { stack.removeLast(); return quote.count + hashes }
        if bytes[index] == UInt8(ascii: "\\") {
            // An escape, or in Swift `\#(` ... `)` with the string's own number of `#`.
            if language == .swift, starts(bytes, at: index + 1, with: hashText + [UInt8(ascii: "(")]) {
                blankRange(&bytes, index..<(index + 2 + hashes))
                stack.append(.interpolation(depth: 0))
                return 2 + hashes
            }
            let escaped = hashes == 0 ? 2 : 1
            blankRange(&bytes, index..<min(bytes.count, index + escaped))
            return escaped
        }
        blankRange(&bytes, index..<(index + 1))
        return 1
    }

    private func starts(_ bytes: [UInt8], at index: Int, with prefix: String) -> Bool {
        starts(bytes, at: index, with: Array(prefix.utf8))
    }

    private func starts(_ bytes: [UInt8], at index: Int, with prefix: [UInt8]) -> Bool {
        index + prefix.count <= bytes.count && Array(bytes[index..<(index + prefix.count)]) == prefix
    }

    /// Spaces over `range`, its newlines kept.
    private func blankRange(_ bytes: inout [UInt8], _ range: Range<Int>) {
        for index in range where index < bytes.count && bytes[index] != UInt8(ascii: "\n") { bytes[index] = UInt8(ascii: " ") }
    }
}
