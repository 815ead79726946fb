import Synchronization

/// Jobs whose lease was lost while they ran (cancelled by an operator, rescued by another
/// worker): their work would be discarded, so it stops. The heartbeat reports them; each job's
/// task waits here beside its work.
final class Abandonments: Sendable {
    private struct State {
        var abandoned: Set<Int> = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    func abandon(_ ids: [Int]) {
        let woken = state.withLock { state in
            ids.compactMap { id -> CheckedContinuation<Void, Never>? in
                state.abandoned.insert(id)
                return state.waiters.removeValue(forKey: id)
            }
        }
        woken.forEach { $0.resume() }
    }

    func isAbandoned(_ id: Int) -> Bool { state.withLock { $0.abandoned.contains(id) } }

    /// Returns when the job is abandoned, or when the waiting task is cancelled.
    func wait(for id: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (now, earlier) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                    guard !state.abandoned.contains(id), !Task.isCancelled else { return (true, nil) }
                    // One run per job (InFlight.claimed); were there two, the first waiter is
                    // woken, never dropped: a continuation dropped unresumed hangs its task.
                    return (false, state.waiters.updateValue(continuation, forKey: id))
                }
                earlier?.resume()
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// The job is done: forget it.
    func forget(_ id: Int) {
        state.withLock { state in
            state.abandoned.remove(id)
            return state.waiters.removeValue(forKey: id)
        }?.resume()
    }
}
