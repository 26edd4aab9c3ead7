/// Text for one line on a terminal: control characters (C0, DEL and C1) are shown as
/// escapes (`\x1b`, `\u{9b}`), so a file or table name cannot move the cursor, recolour the
/// terminal, rewrite the line or start a second one inside a message.
enum VisibleText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if !isControl(scalar) {
                shown.unicodeScalars.append(scalar)
            } else if scalar.value < 0x80 {
                shown += "\\x" + hexDigits(scalar.value)
            } else {
                shown += "\\u{" + hexDigits(scalar.value) + "}"
            }
        }
        return shown
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func hexDigits(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
