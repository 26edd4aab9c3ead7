import CipherKit
import FoundationEssentials
import Glibc

/// A one-line progress bar on standard error for work that takes more than about a second:
/// it watches the file the operation writes grow, and shows pages done of the total.
/// Only on a terminal, and never with --quiet or --json.
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let pageSize: Int
    private let lock = Lock()
    private var phase: ProgressPhase?
    private var started = Date()
    private var drawn = false
    private var lastLine = ""
    private var running = true

    /// A bar for `label`, or nil when standard error is not a terminal or output must stay quiet.
    static func make(label: String, pageSize: Int, console: Console) -> ProgressBar? {
        guard isatty(STDERR_FILENO) != 0, !console.quiet, !console.json else { return nil }
        let bar = ProgressBar(label: label, pageSize: pageSize)
        DetachedThread.start { bar.loop() }
        return bar
    }

    private init(label: String, pageSize: Int) {
        self.label = label
        self.pageSize = max(512, pageSize)
    }

    /// The observer to hand to CipherKit.
    var observer: @Sendable (ProgressPhase) -> Void {
        { [self] phase in self.update(phase) }
    }

    private func update(_ phase: ProgressPhase) {
        lock.lock()
        defer { lock.unlock() }
        if case .finished = phase {
            running = false
            clear()
        } else {
            self.phase = phase
        }
    }

    private func loop() {
        while true {
            usleep(100_000)
            lock.lock()
            defer { lock.unlock() }
            guard running else { return }
            guard Date().timeIntervalSince(started) > 1, let phase else { continue }
            draw(phase)
        }
    }

    private func draw(_ phase: ProgressPhase) {
        let line: String
        switch phase {
        case .rekeying(let watch, let expected), .copying(let watch, let expected):
            let verb = if case .rekeying = phase { "rekeying" } else { "copying" }
            let done = min(expected, (try? FileManager.default.attributesOfItem(atPath: watch)[.size] as? Int) ?? 0)
            let fraction = expected > 0 ? Double(done) / Double(expected) : 0
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            line = "\(verb) \(label) [\(bar)] \(Int(fraction * 100))% \(done / pageSize)/\(expected / pageSize) pages"
        case .verifying:
            line = "verifying \(label)"
        case .finished:
            return
        }
        guard line != lastLine else { return }
        lastLine = line
        StandardOutput.writeError("\r\u{1B}[K" + line)
        drawn = true
    }

    private func clear() {
        if drawn { StandardOutput.writeError("\r\u{1B}[K") }
        drawn = false
    }
}
