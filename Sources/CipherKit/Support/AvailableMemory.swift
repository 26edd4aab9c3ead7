import Glibc

/// The memory the kernel says it can give without swapping (`MemAvailable` of
/// /proc/meminfo), for work that must hold a whole database in memory: checked before it
/// starts, so a file too large fails with a message and not the kernel's OOM kill.
enum AvailableMemory {
    /// Bytes available now; nil where /proc/meminfo does not say.
    static func bytes() -> Int? {
        guard let file = fopen("/proc/meminfo", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("MemAvailable:") else { continue }
            let digits = text.dropFirst("MemAvailable:".count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
