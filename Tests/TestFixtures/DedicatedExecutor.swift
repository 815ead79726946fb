import Foundation

/// Threads of their own for what a test runs in its own process as a stand-in for another
/// process: the simulator, a worker. Swift's cooperative pool has one thread per core, and test
/// bodies do blocking work on it (generating photos with libvips, preparing them, waiting on
/// subprocesses); beside sixty tests on 2 cores that can hold both threads long enough for an
/// in-process simulator to answer nothing for a minute, which a service in a process of its own
/// never does. A task that prefers this executor
/// (`withTaskExecutorPreference`), with its child tasks and the default actors it calls, runs here.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    public init(name: String, threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in runJobs() }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// For the in-process simulators: the threads live as long as the test process.
    public static let simulators = DedicatedExecutor(name: "test-simulators", threads: 4)
    /// For the in-process workers (TestWorker).
    public static let workers = DedicatedExecutor(name: "test-workers", threads: 4)
}
