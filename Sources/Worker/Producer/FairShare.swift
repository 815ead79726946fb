/// Priority without starvation: every `period`-th job a worker claims is the oldest waiting one,
/// whatever its priority (`JobQueue.claim`'s `oldestFirst`). Under a backlog of urgent work that
/// never empties, ordinary jobs still move at a tenth of the rate instead of waiting forever;
/// when the queue keeps up, the order is the priorities' as before. Counted per worker, so a
/// fleet gives the oldest jobs the same share as one worker does.
struct FairShare {
    static let period = 10
    private var claimed = 0

    /// How many of the next `limit` jobs to take oldest-first.
    func oldestFirst(of limit: Int) -> Int {
        (claimed % Self.period + limit) / Self.period
    }

    mutating func record(claimed count: Int) {
        claimed = (claimed + count) % Self.period
    }
}
