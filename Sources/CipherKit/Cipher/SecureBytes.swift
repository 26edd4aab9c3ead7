#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed-size byte buffer for secrets: allocated once, never copied implicitly,
/// locked in memory where the system allows, and zeroed before it is freed.
public final class SecureBytes {
    private let pointer: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a new buffer. The caller should wipe its own copy with `SecureBytes.wipe`.
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        _ = mlock(pointer.baseAddress, pointer.count)
        pointer.initializeMemory(as: UInt8.self, repeating: 0)
        _ = UnsafeMutableRawBufferPointer(rebasing: pointer[0..<bytes.count]).initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// The number of bytes held.
    public let count: Int

    /// Whether the buffer holds no bytes.
    public var isEmpty: Bool { count == 0 }

    /// Calls `body` with the bytes; the pointer must not escape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: pointer[0..<count]))
    }

    /// Overwrites the bytes of an array with zeros, for callers that had to hold a secret in one.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            zero(base, buffer.count)
        }
        bytes.removeAll()
    }

    private static func zero(_ base: UnsafeMutableRawPointer, _ count: Int) {
        #if canImport(Glibc)
        explicit_bzero(base, count)
        #else
        memset_s(base, count, 0, count)
        #endif
    }

    deinit {
        if let base = pointer.baseAddress {
            SecureBytes.zero(base, pointer.count)
            _ = munlock(base, pointer.count)
        }
        pointer.deallocate()
    }
}
