import FoundationEssentials
import Glibc

extension ChildProcess {
    /// A pipe whose two ends are close-on-exec, so that no other child started meanwhile
    /// holds them (which would keep the pipe open past this child's end).
    static func closeOnExecPipe() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw StartFailure.noPipe(errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    /// Starts `launch` with `output` (and `error`, when not -1) as its standard output and error.
    static func spawn(_ launch: ChildLaunch, output: Int32, error: Int32) -> Result<pid_t, StartFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        addDescriptors(launch, output: output, error: error, to: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        setFlags(launch, on: &attributes)
        let arguments: [UnsafeMutablePointer<CChar>?] = launch.arguments.map { (text: String) in strdup(text) }
        defer { arguments.forEach { free($0) } }
        var noEnvironment: [UnsafeMutablePointer<CChar>?] = [nil]
        var child: pid_t = 0
        let own: [UnsafeMutablePointer<CChar>?] = launch.environment.map { $0.map { strdup($0.key + "=" + $0.value) } } ?? []
        defer { own.forEach { free($0) } }
        var ownEnvironment = own + [nil]
        let started = launch.environment != nil
            ? posix_spawn(&child, launch.executable, &actions, &attributes, arguments + [nil], &ownEnvironment)
            : launch.inheritsEnvironment
            ? posix_spawn(&child, launch.executable, &actions, &attributes, arguments + [nil], environ)
            : posix_spawn(&child, launch.executable, &actions, &attributes, arguments + [nil], &noEnvironment)
        return started == 0 ? .success(child) : .failure(.notStarted(started))
    }

    private static func addDescriptors(_ launch: ChildLaunch, output: Int32, error: Int32, to actions: inout posix_spawn_file_actions_t) {
        if let input = launch.input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        switch launch.errorOutput {
        case .captured: posix_spawn_file_actions_adddup2(&actions, error, 2)
        case .discarded: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        case .passed: break
        }
        for (number, descriptor) in launch.descriptors.sorted(by: { $0.key < $1.key }) {
            posix_spawn_file_actions_adddup2(&actions, descriptor, number)
        }
        // Whatever else we hold (a descriptor opened without close-on-exec by a library, or
        // by the process that started us) stays with us.
        _ = closeFrom?(&actions, max(2, launch.descriptors.keys.max() ?? 2) + 1)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not show; nil on a C library without it.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func setFlags(_ launch: ChildLaunch, on attributes: inout posix_spawnattr_t) {
        var flags: Int32 = 0
        if launch.ownProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        if launch.defaultSignals {
            flags |= Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
            var none = sigset_t(), all = sigset_t()
            sigemptyset(&none)
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
    }
}
