/// Trimming as Foundation's `trimmingCharacters(in:)` with `.whitespaces` and
/// `.whitespacesAndNewlines` does it (by Unicode scalar, from both ends), without linking the
/// whole of Foundation.
extension StringProtocol {
    /// Without leading and trailing spaces (Unicode's Zs) and tabs.
    public func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without leading and trailing spaces, tabs and line ends (Unicode's Z*, U+000A to
    /// U+000D and U+0085).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return scalar == "\t" || ("\n"..."\r").contains(scalar) || scalar == "\u{85}"
            }
        }
    }

    private func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !drop($0) })!
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }
}
