/// Analyses held until a test releases them (`discern simulate --hold-analyses`, then
/// `POST /_sim/release-analyses`): a job that must still be in flight when something happens to
/// its worker (a SIGTERM) stays in flight however slow the machine is, and finishes the moment
/// the test says, not after a guessed number of seconds.
actor AnalysisHold {
    private var held: Bool
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(held: Bool) { self.held = held }

    /// Returns at once unless analyses are held; then when they are released.
    func pass() async {
        guard held else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Lets every held analysis go on, and every later one through; returns how many were held.
    func release() -> Int {
        held = false
        let released = waiting
        waiting = []
        released.forEach { $0.resume() }
        return released.count
    }
}
