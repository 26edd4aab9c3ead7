import Glibc

/// A file open for reading or writing, closed when released: what `FileHandle` gave, without
/// linking the whole of Foundation. Calls interrupted by a signal are made again.
public final class OpenFile {
    /// A call that failed, with its `errno`.
    public struct Failure: Error, Equatable {
        public let code: Int32
        /// The system's words for it (`strerror`).
        public var reason: String { String(cString: strerror(code)) }
    }

    public let descriptor: Int32
    private let owned: Bool

    private init(descriptor: Int32, owned: Bool) {
        self.descriptor = descriptor
        self.owned = owned
    }

    /// `path` opened for reading, or nil (with `errno` set) when it cannot be.
    public convenience init?(reading path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(descriptor: descriptor, owned: true)
    }

    /// An existing `path` opened for writing from its start, or nil (with `errno` set).
    public convenience init?(writing path: String) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(descriptor: descriptor, owned: true)
    }

    /// Standard input, left open when released.
    public static var standardInput: OpenFile { OpenFile(descriptor: 0, owned: false) }

    deinit {
        if owned { close(descriptor) }
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw Failure(code: written < 0 ? errno : EIO) }
            offset += written
        }
    }

    /// Writes `bytes` to the disk (`fsync`).
    public func synchronize() throws {
        while fsync(descriptor) != 0 {
            guard errno == EINTR else { throw Failure(code: errno) }
        }
    }

    /// Up to `count` bytes from the current position; empty at the end.
    public func read(upTo count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Failure(code: errno) }
            buffer.removeLast(count - got)
            return buffer
        }
    }

    /// Everything from the current position to the end.
    public func readToEnd() throws -> [UInt8] {
        var contents: [UInt8] = []
        while case let chunk = try read(upTo: 1 << 16), !chunk.isEmpty {
            contents += chunk
        }
        return contents
    }

    /// Up to `count` bytes at `offset` (`pread`), fewer at the end; nil at or past it, or on a failure.
    public func read(at offset: Int, count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got > 0 else { return nil }
        if got < count { buffer.removeLast(count - got) }
        return buffer
    }
}
