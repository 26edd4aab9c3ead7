import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl keygen`: a new random 256-bit raw key, into a new file, a descriptor or on
/// standard output; or (`--derive`) the raw key that opens a database.
enum KeygenCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try KeygenOptions(arguments)
        if let database = options.database {
            return try derive(database, options: options, context: context)
        }
        let console = context.console
        if let descriptor = options.descriptor {
            try KeyOutput.write(try KeyGenerator.rawKeyLine(), to: descriptor)
            guard descriptor != STDOUT_FILENO else { return .success }
            console.result(
                json: .object([("output_fd", .integer(Int(descriptor))), ("bits", .integer(256)), ("format", .string("raw-hex"))]),
                text: "wrote a new 256-bit raw key to descriptor \(descriptor)\n", removedLeftovers: [])
            return .success
        }
        guard let output = options.output else {
            if isatty(STDOUT_FILENO) != 0 { console.warning("the new key is shown on the terminal; \(KeygenOptions.output.synopsis) keeps it off the screen") }
            try printKey(json: console.json)
            return .success
        }
        let keys = KeyReader(prefix: "")
        try KeyGenerator.writeKeyFile(output) { console.warnRemovedLeftover($0) }
        console.result(
            json: .object([("output", .string(output)), ("bits", .integer(256)), ("format", .string("raw-hex"))]),
            text: "wrote a new 256-bit raw key to '\(output)' (mode 0600); use it with \(keys.fileOption) \(output) \(keys.rawOption)\n", removedLeftovers: [])
        return .success
    }

    /// The key on standard output, written straight from its locked buffer; a write that
    /// fails is kept for `CipherCtl.run` (`OutputFailure`), as every command's output is.
    private static func printKey(json: Bool) throws {
        let line = try KeyGenerator.rawKeyLine()
        do {
            try line.withUnsafeBytes { bytes in
                if json { try write(#"{"key":""#) }
                try StandardOutput.write(UnsafeRawBufferPointer(rebasing: bytes[0..<64]))
                try write(json ? "\",\"bits\":256,\"format\":\"raw-hex\"}\n" : "\n")
            }
        } catch let failure as OutputClosed {
            OutputFailure.shared.record(failure)
        } catch {}
    }

    private static func write(_ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { try StandardOutput.write($0) }
    }
}
