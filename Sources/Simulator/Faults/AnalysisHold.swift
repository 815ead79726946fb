/// Analyses held until a test releases them (`discern simulate --hold-analyses`, then
/// `POST /_sim/release-analyses`): a job that must still be in flight when something happens to
/// its worker (a SIGTERM) stays in flight however slow the machine is, and finishes the moment
/// the test says, not after a guessed number of seconds.
actor AnalysisHold {
    private var held: Bool
    /// Jobs (their `X-Correlation-ID`) whose analyses are held even when others are not.
    private var heldJobs: Set<String>
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(held: Bool, jobs: Set<String> = []) {
        self.held = held
        heldJobs = jobs
    }

    /// Returns at once unless analyses (or this job's) are held; then when they are released.
    func pass(correlationID: String? = nil) async {
        guard held || correlationID.map(heldJobs.contains) == true else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Lets every held analysis go on, and every later one through; returns how many were held.
    func release() -> Int {
        held = false
        heldJobs = []
        let released = waiting
        waiting = []
        released.forEach { $0.resume() }
        return released.count
    }
}
