import Synchronization

/// Wakes the producer: a notification arrived, room was freed, or shutdown began. A signal
/// given while nobody waits is kept for the next wait, so none is lost.
final class Wakeup: Sendable {
    private enum State {
        case idle
        case pending
        case waiting(CheckedContinuation<Void, Never>)
    }

    private let state = Mutex(State.idle)

    func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            switch state {
            case .idle, .pending:
                state = .pending
                return nil
            case .waiting(let continuation):
                state = .idle
                return continuation
            }
        }
        waiter?.resume()
    }

    /// Returns on a signal, after `timeout`, or when the task is cancelled.
    func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForSignal() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForSignal() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { state in
                    if case .pending = state {
                        state = .idle
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
