import Synchronization

/// A signal one task awaits without blocking a thread. An event (`latched: false`) is consumed
/// by the wait it ends: the producer's wake-up (a notification arrived, room was freed,
/// shutdown began), where a signal given while nobody waits is kept for the next wait, so none
/// is lost. A latch (`latched: true`) stays given: a thread that has ended.
public final class Signal: Sendable {
    private enum State {
        case idle
        case given
        case waiting(CheckedContinuation<Void, Never>)
    }

    private let latched: Bool
    private let state = Mutex(State.idle)

    public init(latched: Bool = false) {
        self.latched = latched
    }

    public func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            switch state {
            case .idle, .given:
                state = .given
                return nil
            case .waiting(let continuation):
                state = latched ? .given : .idle
                return continuation
            }
        }
        waiter?.resume()
    }

    /// Returns on a signal, after `timeout`, or when the task is cancelled.
    public func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask(operation: { await self.wait() })
            group.addTask(operation: { try? await Task.sleep(for: timeout) })
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns on a signal or when the task is cancelled.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    if case .given = state {
                        if !latched { state = .idle }
                        return true
                    }
                    if Task.isCancelled { return true }
                    state = .waiting(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard case .waiting(let continuation) = state else { return nil }
                state = .idle
                return continuation
            }
            waiter?.resume()
        }
    }
}
