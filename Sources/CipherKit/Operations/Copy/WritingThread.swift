/// One thread, for the life of the process, that runs the jobs given to it in order: the page
/// engine's writes (`EngineWriter`). Every copy's writes go to a disk that takes them one
/// after another anyway, so the copies of a batch share this thread instead of starting one
/// each; and a process's Nth write is the Nth of one thread, which is how `Scripts/faults`
/// places its faults.
final class WritingThread: @unchecked Sendable {
    /// The page engine's writer.
    static let pageWrites = WritingThread()

    private let condition = Condition()
    private var jobs: [() -> Void] = []
    private var started = false

    private init() {}

    /// Queues `job`; starts the thread on the first call.
    func run(_ job: @escaping () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        condition.signal()
        guard !started else { return }
        started = true
        DetachedThread.start { [self] in loop() }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
