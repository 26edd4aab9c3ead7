import Glibc

/// A program found as a shell finds it: a name with a slash as it is, else the first
/// executable of that name in the folders of `PATH` (the environment's, `/usr/bin:/bin`
/// without one).
enum ProgramSearch {
    static func find(_ name: String, environment: [String: String]) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return folders.map { $0 + "/" + name }.first { access($0, X_OK) == 0 }
    }
}
