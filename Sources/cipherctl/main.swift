import FoundationEssentials
import Glibc

ProcessHardening.apply()
// A closed pipe must end the write quietly, not kill the process with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
let code = CipherCtl.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.read())
exit(code.rawValue)
