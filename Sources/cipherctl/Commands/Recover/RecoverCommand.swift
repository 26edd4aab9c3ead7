import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl recover`: every readable row of a damaged database into a new encrypted one.
enum RecoverCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try RecoverOptions(arguments)
        guard let shell = RecoverShell.find(environment: context.environment) else {
            throw UsageError("recover runs SQLite's own recovery through the sqlcipher or sqlite3 shell, and neither is on PATH", command: arguments.command,
                             hint: "install one: apt-get install sqlcipher")
        }
        let (source, destination) = (options.source, options.destination)
        let console = context.console
        let key = try options.key.read(for: source, context: context)
        let destinationKey = try options.destinationKey.read(for: destination, context: context)
        var request = RecoverRequest(
            source: context.openRequest(path: source, key: key, settings: options.settings, mode: .readOnly), destination: destination,
            destinationKey: destinationKey, destinationSettings: options.destinationCipher.settings)
        request.keepsSourceFormat = options.destinationCipher.keepsSourceFormat
        request.leftoverRemoved = { console.warnRemovedLeftover($0) }
        var process: RecoverShell?
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        let report = try GeneratedKeyFile.discardingOnFailure(arguments, prefix: options.destinationKey.reader.prefix, console: console) {
            do {
                return try DatabaseRecoverer.recover(request, token: token) { image in
                    let started = try RecoverShell(shell: shell, image: image)
                    process = started
                    return started.next
                }
            } catch let incomplete as IncompleteRecoverySQL {
                throw RecoverShellFailure(shell: shell, ending: .incomplete(incomplete))
            }
        }
        withExtendedLifetime(process) {}
        console.result(json: RecoverFormatter.json(report, destination: destination), text: RecoverFormatter.text(report, destination: destination), removedLeftovers: [])
        return .success
    }
}
