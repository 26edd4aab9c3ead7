import Foundation
import XCTest

/// A program on a pseudo-terminal of the test's own (no `script`, no other process between):
/// its standard input, output and error are the terminal, so it is interactive as under a
/// user's terminal, and the only processes that ever see its environment are its own.
final class TerminalSession {
    let process = Process()
    private let master: Int32
    /// Everything the terminal showed so far.
    private(set) var screen = ""

    init(executable: String, arguments: [String], environment: [String: String], directory: URL) throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0, Self.call("grantpt", master) == 0, Self.call("unlockpt", master) == 0, let name = Self.terminalName(master) else {
            throw XCTSkip("no pseudo-terminal here")
        }
        let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw XCTSkip("cannot open \(String(cString: name))") }
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        (process.standardInput, process.standardOutput, process.standardError) = (terminal, terminal, terminal)
        try process.run()
        try terminal.close()
    }

    /// glibc's grantpt and unlockpt, which Swift's Glibc module does not show (they need
    /// _XOPEN_SOURCE).
    private static func call(_ function: String, _ descriptor: Int32) -> Int32 {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), function) else { return -1 }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)(descriptor)
    }

    /// ptsname: the path of the terminal's other side.
    private static func terminalName(_ descriptor: Int32) -> UnsafeMutablePointer<CChar>? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "ptsname") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)(descriptor)
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// Reads until `text` has appeared after what was seen before the call; false when the
    /// terminal closed or `seconds` passed first.
    @discardableResult
    func waitFor(_ text: String, seconds: Double = 30) -> Bool {
        let start = screen.endIndex
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if screen[start...].contains(text) { return true }
            guard readSome(milliseconds: 200) >= 0 else { return screen[start...].contains(text) }
        }
        return false
    }

    /// Whether the terminal echoes what is typed now.
    var echoes: Bool {
        var settings = termios()
        return tcgetattr(master, &settings) == 0 && settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Sends `bytes` as typed, with no return after them (a Ctrl-C is "\u{03}").
    func press(_ bytes: String) {
        let data = Array(bytes.utf8)
        _ = data.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Sends `number` to the terminal's foreground process group, as the terminal's own keys do.
    func signalForeground(_ number: Int32) {
        let group = tcgetpgrp(master)
        if group > 0 { _ = kill(-group, number) }
    }

    /// Types `line` and a return.
    func type(_ line: String) {
        let bytes = Array((line + "\r").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads what remains until the program has exited; its exit code.
    func finish(seconds: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let read = readSome(milliseconds: 200)
            if read < 0 || (read == 0 && !process.isRunning) { break }
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// One read when there is something: the bytes read, 0 when nothing came in time, -1
    /// once the terminal has closed.
    private func readSome(milliseconds: Int32) -> Int {
        var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return 0 }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return -1 }
        screen += String(decoding: buffer[0..<count], as: UTF8.self)
        return count
    }
}
