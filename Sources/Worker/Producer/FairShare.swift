/// Priority without starvation: one claim in `period` is served oldest-first, whatever the
/// jobs' priorities (`JobQueue.claim`'s `oldestFirst`). Under a backlog of urgent work that never
/// empties, ordinary jobs still move at about a tenth of the rate instead of waiting forever;
/// when the queue keeps up, or holds one priority, the order is the priorities' as before.
/// Whole claims rather than a tenth of each: the oldest-first lookup then costs one claim in
/// ten, not every claim (pgbench: a quarter of the claim rate when every claim of 32 asked for
/// 3 oldest). Counted per worker, so a fleet gives the oldest jobs the same share as one worker.
struct FairShare {
    static let period = 10
    private var claims = 0

    /// How many of the next claim's `limit` jobs to take oldest-first: all of them, or none.
    func oldestFirst(of limit: Int) -> Int {
        claims == Self.period - 1 ? limit : 0
    }

    /// A claim that found jobs counts; an empty queue answering nothing does not.
    mutating func record(claimed count: Int) {
        if count > 0 { claims = (claims + 1) % Self.period }
    }
}
