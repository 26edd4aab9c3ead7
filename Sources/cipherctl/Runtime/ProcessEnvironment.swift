import FoundationEssentials
import Glibc

/// The environment the process started with, exactly as `ProcessInfo.environment` reads it:
/// each `NAME=value` entry split at its first `=` Character, an entry without one left out, a
/// later entry of a name replacing an earlier one, invalid UTF-8 repaired.
///
/// `ProcessInfo` finds the `=` by breaking every entry into Characters and grows its
/// dictionary an entry at a time, which was about half of `cipherctl --version`'s own
/// instructions (docs/performance.md, "Start-up"). In ASCII every byte is a Character, so an
/// ASCII entry (almost every one) is split at its first `=` byte; any other is split as
/// `ProcessInfo` splits it, since there an `=` with a combining mark after it is one
/// Character, and no `=`.
enum ProcessEnvironment {
    static func read() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var result = [String: String](minimumCapacity: count)
        for index in 0..<count {
            guard let entry = environ[index], let (name, value) = split(entry) else { continue }
            result[name] = value
        }
        return result
    }

    /// The bytes of variable `name`'s value as the process received them (its last entry),
    /// for a key: `read()` repairs invalid UTF-8, which would change a passphrase's bytes. nil
    /// when no entry has that name.
    static func bytes(of name: String) -> [UInt8]? {
        let prefix = Array(name.utf8) + [UInt8(ascii: "=")]
        var found: [UInt8]?
        var index = 0
        while let entry = environ[index] {
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: strlen(entry))
            if bytes.starts(with: prefix) { found = Array(bytes[prefix.count...]) }
            index += 1
        }
        return found
    }

    /// An entry's name and value, or nil when it has no `=`.
    static func split(_ entry: UnsafePointer<CChar>) -> (name: String, value: String)? {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: strlen(entry))
        if bytes.allSatisfy({ $0 < 0x80 }) {
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            return (String(decoding: bytes[..<equals], as: UTF8.self), String(decoding: bytes[(equals + 1)...], as: UTF8.self))
        }
        let text = String(cString: entry)
        guard let equals = text.firstIndex(of: "=") else { return nil }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}
