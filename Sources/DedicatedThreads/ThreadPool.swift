import Foundation

/// A fixed set of dedicated OS threads for blocking work: libpq, libcurl and libvips calls.
///
/// Swift's cooperative pool has one thread per core; a blocking C call parked on it stalls every
/// task behind it. `run` hands the closure to one of these threads and suspends the caller
/// until it finishes, so the cooperative threads stay free.
public final class ThreadPool: Sendable {
    public typealias ThreadHook = @Sendable () -> Void

    private let queue: WorkQueue
    public let threadCount: Int

    /// - Parameters:
    ///   - name: shown in debuggers and `top -H`.
    ///   - threads: how many blocking calls may run at once.
    ///   - onThreadExit: runs on each thread as it ends (libvips wants `vips_thread_shutdown()`).
    public init(name: String, threads: Int, onThreadExit: ThreadHook? = nil) {
        precondition(threads > 0, "a thread pool needs at least one thread")
        self.threadCount = threads
        self.queue = WorkQueue()
        for index in 0..<threads {
            let queue = self.queue
            let thread = Thread {
                BlockingCallAudit.markCurrentThreadDedicated()
                queue.runUntilClosed()
                onThreadExit?()
            }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    deinit { queue.close() }

    /// Runs `body` on a dedicated thread and returns its result to the suspended caller.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.submit { continuation.resume(with: Result { try body() }) }
            if !accepted { continuation.resume(throwing: ThreadPoolError.shutDown) }
        }
    }

    /// Runs `body` on a dedicated thread, unless the calling task is cancelled before a thread
    /// takes it up: then it never runs, and `CancellationError` is thrown. For work that is
    /// worth nothing to a task that stopped (preparing a photo for a worker shutting down);
    /// work already under way runs to its end, as blocking C calls must.
    public func runUnlessCancelled<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let cancelled = LockedFlag()
        return try await withTaskCancellationHandler {
            try await run {
                if cancelled.isSet { throw CancellationError() }
                return try body()
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// Stops the threads once the queued work is done.
    public func shutdown() { queue.close() }
}

public struct ThreadPoolError: Error, CustomStringConvertible {
    public static let shutDown = ThreadPoolError()
    public var description: String { "the thread pool was shut down; the work was not started" }
}

/// A closed-ended FIFO of closures guarded by a condition variable.
private final class WorkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [@Sendable () -> Void] = []
    private var closed = false

    /// False when the queue is closed: the caller must answer its waiter itself.
    func submit(_ item: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        items.append(item)
        condition.signal()
        return true
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func runUntilClosed() {
        while let item = next() { item() }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        return items.isEmpty ? nil : items.removeFirst()
    }
}
