import Synchronization

/// Analyses held until a test releases them (`discern simulate --hold-analyses`, then
/// `POST /_sim/release-analyses`): a job that must still be in flight when something happens to
/// its worker (a SIGTERM) stays in flight however slow the machine is, and finishes the moment
/// the test says, not after a guessed number of seconds. A held request whose task is cancelled
/// (the server stopping) lets go of its own wait, so a stopped simulator never hangs on one.
final class AnalysisHold: Sendable {
    private struct State {
        var held: Bool
        /// Jobs (their `X-Correlation-ID`) whose analyses are held even when others are not.
        var heldJobs: Set<String>
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        /// The correlation id of each held analysis, while it is held.
        var holding: [Int: String] = [:]
        /// Waits cancelled before their continuation was stored.
        var cancelled: Set<Int> = []
        var nextTicket = 0
    }

    private let state: Mutex<State>

    init(held: Bool, jobs: Set<String> = []) {
        state = Mutex(State(held: held, heldJobs: jobs))
    }

    /// Returns at once unless analyses (or this job's) are held; then when they are released,
    /// or when the calling task is cancelled.
    func pass(correlationID: String? = nil) async {
        let ticket: Int? = state.withLock { state in
            guard state.held || correlationID.map(state.heldJobs.contains) == true else { return nil }
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        guard let ticket else { return }
        state.withLock { $0.holding[ticket] = correlationID ?? "" }
        defer { _ = state.withLock { $0.holding.removeValue(forKey: ticket) } }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let goOn = state.withLock { state in
                    if state.cancelled.remove(ticket) != nil { return true }
                    state.waiting[ticket] = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiting = state.waiting.removeValue(forKey: ticket) { return waiting }
                state.cancelled.insert(ticket)
                return nil
            }
            continuation?.resume()
        }
    }

    /// The correlation ids (`discern-job-<id>`) of the analyses held now: a test tells a job
    /// waiting on its service from one still being prepared.
    var heldNow: [String] { state.withLock { $0.holding.values.sorted() } }

    /// Lets every held analysis go on, and every later one through; returns how many were held.
    func release() -> Int {
        let released = state.withLock { state in
            state.held = false
            state.heldJobs = []
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        released.forEach { $0.resume() }
        return released.count
    }
}
