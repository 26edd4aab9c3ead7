import Dispatch
import FoundationEssentials
import Glibc

/// The chunks of a rotation pass: converted, and proven at the end.
extension RotationPass {
    /// Pages a chunk: the page engine's chunk, about 1 MB.
    var chunkPages: Int { max(1, PageEngine.chunkBytes / record.pageSize) }

    /// The first page of each chunk, page 1's chunk last.
    var chunkStarts: [Int] {
        let starts = Array(stride(from: 1, through: record.pages, by: chunkPages))
        return Array(starts.dropFirst()) + [1]
    }

    /// Converts every chunk not yet wholly under `to`'s key from `from`'s: each chunk's old
    /// bytes saved in the record and fsynced first, then its new pages written and fsynced.
    /// `fresh`: no page was converted yet (the run just proved every page under `from`), so no
    /// chunk is looked at under `to` first. Each chunk is converted on `threads` threads.
    ///
    /// - Throws: `CipherKitError.damagedPages` (a page under neither key), `.verificationFailed`
    ///   (a written page that does not decrypt back), `.cancelled`, a write's failure.
    func convert(from: PageCodec, to: PageCodec, fresh: Bool, threads: Int, token: CancellationToken) throws {
        let pageSize = record.pageSize, capacity = chunkPages * pageSize
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 4096)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 4096)
        defer {
            // Ciphertext only (the plaintext stays in the C codec's own buffers), zeroed anyway.
            for buffer in [input, output] {
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                buffer.deallocate()
            }
        }
        let saving = open(recordPath, O_RDWR | O_CLOEXEC)
        guard saving >= 0 else { throw CipherKitError.fileAccess(path: recordPath, reason: String(cString: strerror(errno))) }
        defer { close(saving) }
        for first in chunkStarts {
            try token.check(path)
            let count = min(chunkPages, record.pages - first + 1), bytes = count * pageSize, offset = (first - 1) * pageSize
            try read(into: input, count: bytes, at: offset)
            let source = UnsafeRawBufferPointer(rebasing: input[0..<bytes])
            if !fresh, try to.damagedPages(in: source, first: first, count: count).isEmpty { continue }
            let saved = RotationRecord.chunkBytes(first: first, pages: source, pageSize: pageSize)
            try saved.withUnsafeBytes { try Self.writeAndSync(saving, $0, at: record.headerBytes, path: recordPath) }
            let written = UnsafeMutableRawBufferPointer(rebasing: output[0..<bytes])
            let bad = try Self.convert(source, first: first, count: count, codecs: (from, to), into: written, threads: threads)
            if let problem = Self.failure(of: bad, path: path) { throw problem }
            try write(UnsafeRawBufferPointer(written), at: offset)
        }
    }

    /// Proves every page under `codec`'s key by its HMAC, as the engine's copies are proven;
    /// throws `CipherKitError.verificationFailed` naming the first pages that fail.
    func proveEveryPage(_ codec: PageCodec) throws {
        let pageSize = record.pageSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkPages * pageSize, alignment: 4096)
        defer { buffer.deallocate() }
        var failed: [Int] = []
        for first in stride(from: 1, through: record.pages, by: chunkPages) {
            let count = min(chunkPages, record.pages - first + 1)
            try read(into: buffer, count: count * pageSize, at: (first - 1) * pageSize)
            failed += try codec.damagedPages(in: UnsafeRawBufferPointer(rebasing: buffer[0..<(count * pageSize)]), first: first, count: count)
        }
        guard failed.isEmpty else {
            let listed = failed.prefix(5).map(String.init).joined(separator: ", ")
            throw CipherKitError.verificationFailed(path: path, problems: ["\(failed.count) page(s) fail their HMAC under the target key (pages \(listed))"])
        }
    }

    /// One chunk's pages converted in `threads` runs at once, each on its own thread (the
    /// codecs keep no state between calls); returns the bad pages of them all.
    private static func convert(
        _ source: UnsafeRawBufferPointer, first: Int, count: Int, codecs: (from: PageCodec, to: PageCodec),
        into written: UnsafeMutableRawBufferPointer, threads: Int
    ) throws -> [(pgno: Int, roundTrip: Bool)] {
        let parts = max(1, min(threads, count)), each = (count + parts - 1) / parts, pageSize = codecs.from.pageSize
        let results = UnsafeMutableBufferPointer<Result<[(pgno: Int, roundTrip: Bool)], Error>>.allocate(capacity: parts)
        results.initialize(repeating: .success([]))
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let start = part * each, pages = min(each, count - start)
            guard pages > 0 else { return }
            let bytes = (start * pageSize)..<((start + pages) * pageSize)
            results[part] = Result {
                try codecs.from.convert(UnsafeRawBufferPointer(rebasing: source[bytes]), first: first + start, count: pages, to: codecs.to,
                                        into: UnsafeMutableRawBufferPointer(rebasing: written[bytes]))
            }
        }
        return try results.flatMap { try $0.get() }
    }

    /// What the engine found wrong with a chunk, as an error; nil when nothing.
    private static func failure(of bad: [(pgno: Int, roundTrip: Bool)], path: String) -> CipherKitError? {
        guard !bad.isEmpty else { return nil }
        let damaged = bad.filter { !$0.roundTrip }.map { DamagedPage(page: $0.pgno, reason: "fails its HMAC under both keys") }
        if !damaged.isEmpty { return .damagedPages(path: path, pages: damaged) }
        let listed = bad.prefix(5).map { String($0.pgno) }.joined(separator: ", ")
        return .verificationFailed(path: path, problems: ["\(bad.count) written page(s) do not decrypt back to their source (pages \(listed))"])
    }
}
