/// A word a POSIX shell reads back as it is: as it is when it holds only characters no shell
/// acts on, else in single quotes (a quote inside written '\''), for the commands a report
/// suggests.
enum ShellQuoting {
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "@%+=:,./_-".unicodeScalars.contains($0)) }
        return plain ? word : "'" + word.replacingScalar("'", with: "'\\''") + "'"
    }
}
