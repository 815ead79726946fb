import Foundation
import Synchronization

/// Checks the rule that blocking C calls (libpq, libcurl, libvips) run only on discern's own
/// threads, never on Swift's cooperative pool.
///
/// Off by default. `enable()` (the executable, with `DISCERN_AUDIT_BLOCKING=1` in its
/// settings) makes a blocking call on any other thread stop the process with the call's name:
/// the test suite runs a worker that way over every kind of job
/// (Tests/IntegrationTests/Worker/BlockingAuditTests.swift).
public enum BlockingCallAudit {
    private static let enabled = Atomic(false)

    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// From now on, a blocking call off discern's threads stops the process.
    public static func enable() {
        enabled.store(true, ordering: .relaxed)
    }

    /// Call at the entry of every function that blocks in C.
    @inline(__always)
    public static func check(_ call: StaticString) {
        guard isEnabled, !isDedicatedThread else { return }
        fatalError("blocking call \(call) ran on \(Thread.current.name ?? "an unnamed thread"), which is not one of discern's dedicated threads")
    }

    /// Marks the calling thread as one of discern's own (pool threads, the LISTEN thread).
    public static func markCurrentThreadDedicated() {
        pthread_setspecific(dedicatedKey, UnsafeRawPointer(bitPattern: 1))
    }

    public static var isDedicatedThread: Bool { pthread_getspecific(dedicatedKey) != nil }
}

private let dedicatedKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
