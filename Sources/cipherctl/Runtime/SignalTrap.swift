import CipherKit
import Dispatch
import FoundationEssentials
import Glibc

/// Turns SIGINT and SIGTERM into a cancellation of the running operation, so it can roll
/// back and remove its temporary files instead of dying mid-step.
enum SignalTrap {
    private nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []

    /// Routes both signals to `token.cancel()` for the rest of the process.
    static func install(cancelling token: CancellationToken) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { token.cancel() }
            source.resume()
            sources.append(source)
        }
    }
}
