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
    /// bytes saved in the record and fsynced first, then page 1 poisoned (before the first
    /// chunk is written; `RotationRecord.poisonedPage1`), then its new pages written and
    /// fsynced. `fresh`: no page was converted yet (the run just proved every page under
    /// `from`), so no chunk is looked at under `to` first. Each chunk is converted on
    /// `threads` threads.
    ///
    /// - Throws: `CipherKitError.damagedPages` (a page under neither key), `.verificationFailed`
    ///   (a written page that does not decrypt back), `.cancelled`, a write's failure.
    func convert(from: PageCodec, to: PageCodec, fresh: Bool, threads: Int, token: CancellationToken) throws {
        let capacity = chunkPages * record.pageSize
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
        var poisoned = false
        for first in chunkStarts {
            try token.check(path)
            let count = min(chunkPages, record.pages - first + 1), bytes = count * record.pageSize
            try read(into: input, count: bytes, at: (first - 1) * record.pageSize)
            let chunk = UnsafeMutableRawBufferPointer(rebasing: input[0..<bytes])
            let plan = try chunkPlan(UnsafeRawBufferPointer(chunk), first: first, to: to, fresh: fresh)
            if plan == .skip { continue }
            // The record saves the chunk as the disk holds it once page 1 is poisoned.
            if first == 1 { chunk.copyBytes(from: record.poisonedPage1) }
            let saved = RotationRecord.chunkBytes(first: first, pages: UnsafeRawBufferPointer(chunk), pageSize: record.pageSize)
            try saved.withUnsafeBytes { try Self.writeAndSync(saving, $0, at: record.headerBytes, path: recordPath) }
            if !poisoned { try poisonPageOne() }
            poisoned = true
            try writeChunk(chunk, first: first, plan: plan, codecs: (from, to), threads: threads, into: output)
        }
    }

    /// What a chunk needs.
    private enum ChunkPlan { case skip, convert, pageOne }

    /// `skip` when the chunk is wholly under `to`'s key; `pageOne` for page 1's chunk when all
    /// its other pages are and page 1 is not (a crash came between them); else `convert`.
    private func chunkPlan(_ chunk: UnsafeRawBufferPointer, first: Int, to: PageCodec, fresh: Bool) throws -> ChunkPlan {
        if fresh { return .convert }
        let pageSize = record.pageSize, count = chunk.count / pageSize
        guard first == 1 else { return try to.damagedPages(in: chunk, first: first, count: count).isEmpty ? .skip : .convert }
        let restDone = try count == 1 || to.damagedPages(in: UnsafeRawBufferPointer(rebasing: chunk[pageSize...]), first: 2, count: count - 1).isEmpty
        guard restDone else { return .convert }
        return try to.damagedPages(in: UnsafeRawBufferPointer(rebasing: chunk[0..<pageSize]), first: 1, count: 1).isEmpty ? .skip : .pageOne
    }

    /// Writes (and fsyncs) a chunk as its plan says: page 1 alone, under the target key from
    /// the record, or every page converted, page 1 from the record's image under the source key.
    private func writeChunk(
        _ chunk: UnsafeMutableRawBufferPointer, first: Int, plan: ChunkPlan, codecs: (from: PageCodec, to: PageCodec), threads: Int,
        into output: UnsafeMutableRawBufferPointer
    ) throws {
        let images = first == 1 ? try pageOneImages(from: codecs.from) : nil
        if plan == .pageOne, let images { return try images.to.withUnsafeBytes { try write($0, at: 0) } }
        if let images { chunk.copyBytes(from: images.from) }
        let count = chunk.count / record.pageSize
        let written = UnsafeMutableRawBufferPointer(rebasing: output[0..<chunk.count])
        let bad = try Self.convert(UnsafeRawBufferPointer(chunk), first: first, count: count, codecs: codecs, into: written, threads: threads)
        if let problem = Self.failure(of: bad, path: path) { throw problem }
        // Page 1 alone and last, once the rest of its chunk is synced: a torn write never
        // leaves a page 1 that opens before every other page does.
        let pageSize = record.pageSize, skip = first == 1 ? pageSize : 0
        if chunk.count > skip { try write(UnsafeRawBufferPointer(rebasing: written[skip...]), at: (first - 1) * pageSize + skip) }
        if first == 1 { try write(UnsafeRawBufferPointer(rebasing: written[0..<pageSize]), at: 0) }
    }

    /// Page 1 under the pass's source key and under its target key, as the record holds them.
    private func pageOneImages(from: PageCodec) throws -> (from: [UInt8], to: [UInt8]) {
        let oldIsSource = try record.oldPage1.withUnsafeBytes { try from.damagedPages(in: $0, first: 1, count: 1).isEmpty }
        return oldIsSource ? (record.oldPage1, record.newPage1) : (record.newPage1, record.oldPage1)
    }

    /// Writes the poisoned page 1 (fsynced) unless the disk holds it already.
    private func poisonPageOne() throws {
        let poison = record.poisonedPage1
        var current = [UInt8](repeating: 0, count: poison.count)
        try current.withUnsafeMutableBytes { try read(into: $0, count: poison.count, at: 0) }
        guard current != poison else { return }
        try poison.withUnsafeBytes { try write($0, at: 0) }
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
