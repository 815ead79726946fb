import Foundation
import JobQueue
import Postgres
import Synchronization
import Testing

/// A count of events that tasks wait to see move: a process's output growing, its exit, an
/// announcement on the database's change channels. Every wait in these tests rests on one.
final class EventCount: Sendable {
    private struct Waiter {
        let after: Int
        let continuation: CheckedContinuation<Int?, Never>
    }
    private struct State {
        var count = 0
        var waiters: [UUID: Waiter] = [:]
    }
    private let state = Mutex(State())

    var value: Int { state.withLock { $0.count } }

    func bump() {
        let woken = state.withLock { state -> [(CheckedContinuation<Int?, Never>, Int)] in
            state.count += 1
            let ready = state.waiters.filter { $0.value.after < state.count }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map { [count = state.count] in ($0.continuation, count) }
        }
        for (continuation, count) in woken { continuation.resume(returning: count) }
    }

    /// Waits until the count passes `seen` and returns it; nil once the task is cancelled (the
    /// test's time limit).
    func next(after seen: Int) async -> Int? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Int?? = state.withLock { state in
                    if Task.isCancelled { return .some(nil) }
                    if state.count > seen { return .some(state.count) }
                    state.waiters[id] = Waiter(after: seen, continuation: continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
    }

    /// Checks `condition` at each event after `seen` until it holds; false once the task is
    /// cancelled, or once `within` has passed (recorded as an issue at `sourceLocation`, the
    /// wait that gave up; nil: no deadline of its own, for a caller that bounds the wait itself).
    func until(
        after seen: Int = 0, within: Duration? = Waits.deadline, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        if try await condition() { return true }
        let deadline = within.map { ContinuousClock.now + $0 }
        let timer = deadline.map { deadline in
            Task { [self] in
                try? await Task.sleep(until: deadline)
                bump()
            }
        }
        defer { timer?.cancel() }
        var seen = seen
        while let now = await next(after: seen) {
            seen = now
            if try await condition() { return true }
            if let deadline, let within, ContinuousClock.now >= deadline {
                Waits.gaveUp(after: within, at: sourceLocation)
                return false
            }
        }
        return false
    }
}

/// Every wait has a deadline of its own, well inside the test's time limit: a wait that hangs
/// fails naming itself (its file and line), not 20 minutes later as "time limit exceeded".
enum Waits {
    /// No wait outlasts its test, and the longest test (the fault run) took 338 s in CI beside
    /// the whole suite on 2 busy cores: 600 s leaves room, and a hang still fails well inside
    /// the 20-minute time limit.
    static let deadline = Duration.seconds(600)

    static func gaveUp(after within: Duration, at sourceLocation: SourceLocation) {
        Issue.record(
            "this wait gave up after \(within.components.seconds) s, its own deadline: what it waited for never happened",
            sourceLocation: sourceLocation)
    }
}

/// Waits on what discern announces where its console listens ('discern_changes' and
/// 'discern_jobs'): a worker's claims, outcomes and rescues (its ChangeAnnouncer, within a
/// second), enqueues and retries, breakers tripping and closing, workers starting and stopping.
/// A wait ends at its own deadline (`Waits`), or the test's time limit, whichever comes first.
enum Announcements {
    static let channels = [JobQueue.changesChannel, "discern_jobs"]
    /// What nothing announces (a worker SIGKILLed between its outcome and its announcement) an
    /// open console page still shows within its safety net, 30 s by default: a wait looks again
    /// as often.
    static let safetyNet = Duration.seconds(30)

    /// Checks `condition` once listening (so no announcement falls between a look and the
    /// LISTEN), then at each announcement, and on each reconnection after the database was away;
    /// returns whether it held before the test was cancelled.
    @discardableResult
    static func until(
        _ conninfo: String, within: Duration = Waits.deadline, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let changes = EventCount()
        let listener = NotificationListener(conninfo: conninfo, channels: channels) { changes.bump() }
        let net = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: safetyNet)
                changes.bump()
            }
        }
        defer { net.cancel() }
        do {
            // The first event is the listener connecting: the first look comes after it.
            guard let connected = await changes.next(after: 0) else {
                await listener.stop()
                return false
            }
            let held = try await changes.until(after: connected, within: within, sourceLocation: sourceLocation, condition)
            await listener.stop()
            return held
        } catch {
            await listener.stop()
            throw error
        }
    }
}

/// For state that nothing announces (an HTTP endpoint, Prometheus' scrapes, a file another
/// process writes): looks every 200 ms until `condition` holds; false once the test's time
/// limit cancels the wait, or at its own deadline (recorded as an issue where it waited).
enum Poll {
    @discardableResult
    static func until(
        within: Duration = Waits.deadline, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + within
        while !Task.isCancelled {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline {
                Waits.gaveUp(after: within, at: sourceLocation)
                return false
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}

extension Trait where Self == TimeLimitTrait {
    /// What bounds every wait in an integration test: the longest test takes about 6.5 minutes
    /// beside the whole suite on 2 busy cores, so a hang fails in 20, well inside CI's 90.
    static var integrationTimeLimit: Self { .timeLimit(.minutes(20)) }
}
