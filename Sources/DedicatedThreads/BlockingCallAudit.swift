import Foundation

/// Checks the rule that blocking C calls (libpq, libcurl, libvips) run only on discern's own
/// threads, never on Swift's cooperative pool.
///
/// Off by default. With `DISCERN_AUDIT_BLOCKING=1` in the environment, a blocking call made on
/// any other thread stops the process with the call's name: the test suite runs a worker that
/// way over every kind of job (Tests/IntegrationTests/Worker/BlockingAuditTests.swift).
public enum BlockingCallAudit {
    public static let isEnabled = ProcessInfo.processInfo.environment["DISCERN_AUDIT_BLOCKING"].map { !$0.isEmpty && $0 != "0" } ?? false

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
