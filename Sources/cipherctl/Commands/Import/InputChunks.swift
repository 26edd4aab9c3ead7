import CipherKit
import FoundationEssentials
import Glibc

/// The input of an import, 64 KiB at a time: a file, or standard input.
final class InputChunks: @unchecked Sendable {
    private let descriptor: Int32
    private let path: String

    init(path: String?) throws {
        self.path = path ?? "standard input"
        guard let path else {
            descriptor = STDIN_FILENO
            return
        }
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit {
        if descriptor != STDIN_FILENO { close(descriptor) }
    }

    func next() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count == 0 { return nil }
            guard errno == EINTR else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        }
    }
}
