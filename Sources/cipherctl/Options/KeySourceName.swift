/// What a message may say of a key source's name (an environment variable's name, a key
/// file's path): a user who puts the key itself where the name goes must not see it printed.
enum KeySourceName {
    /// `name` when it cannot be key material as the user would type it: an environment
    /// variable's name, or a path without spaces that is not a run of 32 or more hex digits;
    /// nil otherwise.
    static func shown(_ name: String, variable: Bool) -> String? {
        if name.isEmpty || name.contains(where: \.isWhitespace) { return nil }
        let digits = name.hasPrefix("x'") ? String(name.dropFirst(2).dropLast()) : name
        if digits.count >= 32, digits.allSatisfy(\.isHexDigit) { return nil }
        guard variable else { return name }
        let first = name.unicodeScalars.first!
        let isName = (first == "_" || (first.isASCII && first.properties.isAlphabetic))
            && name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
        return isName && name.count <= 64 ? name : nil
    }
}
