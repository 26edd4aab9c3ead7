extension StringProtocol {
    /// Every `scalar` replaced by `replacement`, scalar by scalar. Swift's own `replacing`
    /// compares characters, so a quote followed by a combining mark (one character with it)
    /// would be passed over: `a"́b` quoted that way ends the SQL identifier early.
    public func replacingScalar(_ scalar: Unicode.Scalar, with replacement: String) -> String {
        var result = String.UnicodeScalarView()
        for each in unicodeScalars {
            if each == scalar {
                result.append(contentsOf: replacement.unicodeScalars)
            } else {
                result.append(each)
            }
        }
        return String(result)
    }
}
