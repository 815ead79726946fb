import JobQueue

/// The jobs this worker holds: claimed by the producer, released by the completer once their
/// outcome is written. The producer sizes its claims to the room left; the heartbeat renews
/// their leases; at the end, whatever is still here is handed back.
actor InFlight {
    private var jobs: [Int: Job] = [:]
    private var preparing: Set<Int> = []
    /// Outcomes on their way to the database: the heartbeat may find them no longer running
    /// before the completer has released them, and must not take that for a lost lease.
    private var writing: Set<Int> = []
    private let onFreed: @Sendable () -> Void

    /// - Parameter onFreed: told when room was freed (the producer may claim again).
    init(onFreed: @escaping @Sendable () -> Void) { self.onFreed = onFreed }

    /// Holds the claimed jobs; returns those to run. A job this worker is still running comes
    /// back from a claim when another worker took this one for stopped (a starved process beats
    /// late) and handed it back: the lease is this worker's again, and the run under way keeps
    /// it. Running it twice at once would call the service twice for one result.
    func claimed(_ claimed: [Job]) -> (fresh: [Job], running: [Int]) {
        var fresh: [Job] = [], running: [Int] = []
        for job in claimed {
            guard jobs[job.id] == nil else {
                running.append(job.id)
                continue
            }
            fresh.append(job)
            jobs[job.id] = job
            preparing.insert(job.id)
            if job.runsAlone { aloneJobs.insert(job.id) }
        }
        return (fresh, running)
    }

    /// Held jobs that must run alone: kept apart so `room` need not look through every job
    /// (a generic search of the dictionary was 3 % of a no-op worker's CPU).
    private var aloneJobs: Set<Int> = []

    /// The job left the prepare stage (prepared, or failed in it), `seconds` after it entered.
    func prepared(_ id: Int, seconds: Double? = nil) {
        if let seconds { preparationSeconds = preparationSeconds.map { 0.9 * $0 + 0.1 * seconds } ?? seconds }
        if preparing.remove(id) != nil { onFreed() }
    }

    /// A moving average of how long preparing a job takes (nil until one was).
    private var preparationSeconds: Double?
    /// Below this, preparation is no stage to wait in (jobs that send no file, tiny images):
    /// claims fill the whole pipeline instead of the prepare queue alone.
    static let cheapPreparationSeconds = 0.002

    /// The completer is writing these jobs' outcomes.
    func writing(_ ids: [Int]) { writing.formUnion(ids) }

    /// The job's outcome is on its way to the completer: it takes no more room in the stages,
    /// only in the completer's backlog (`room`).
    func outcomeReady(_ id: Int) {
        guard jobs[id] != nil, unwritten.insert(id).inserted else { return }
        onFreed()
    }

    /// Jobs done but for writing their outcome down.
    private var unwritten: Set<Int> = []

    /// Let go of before their outcomes are written (`Completer.letGo`): no longer held, so a
    /// claim may take them again the moment a write commits, but still accounted for until
    /// `settled`: the rescuer must not take a job whose outcome is on its way for one this
    /// worker lost (its write would then land on the next claim).
    func letGo(_ ids: [Int]) {
        finished(ids)
        settling.formUnion(ids)
    }

    /// Their outcomes are written (or given up on).
    func settled(_ ids: [Int]) { settling.subtract(ids) }

    /// Jobs let go whose outcomes are still being written.
    private var settling: Set<Int> = []

    func finished(_ ids: [Int]) {
        var freed = false
        for id in ids {
            preparing.remove(id)
            writing.remove(id)
            unwritten.remove(id)
            aloneJobs.remove(id)
            if jobs.removeValue(forKey: id) != nil { freed = true }
        }
        if freed { onFreed() }
    }

    /// How many jobs may be claimed now: room in the prepare stage (`prepareQueue` claimed for
    /// it at once), and in the whole pipeline (the network slots plus the prepared jobs allowed
    /// to wait for one), so no job holds a lease for long behind a saturated stage. None while a
    /// job that must run alone is held (`Job.runsAlone`).
    /// When preparing costs next to nothing, a claim may fill the whole pipeline at once: a
    /// claim of two no-op jobs at a time left a worker waiting on claims (bench/scale). A job
    /// whose outcome waits to be written takes no room in the stages, so claims and writes
    /// overlap; the completer's backlog is bounded by `maxUnwritten` instead.
    func room(prepareQueue: Int, concurrency: Int, maxUnwritten: Int) -> Int {
        guard aloneJobs.isEmpty else { return 0 }
        let pipeline = min(concurrency + prepareQueue - (jobs.count - unwritten.count), maxUnwritten - unwritten.count)
        let cheap = (preparationSeconds ?? .infinity) < Self.cheapPreparationSeconds
        return max(0, min(cheap ? pipeline : prepareQueue - preparing.count, pipeline))
    }

    var ids: [Int] { Array(jobs.keys) }
    /// Held, or let go with an outcome still being written: this worker's, not orphans.
    var accountedFor: [Int] { Array(settling.union(jobs.keys)) }
    /// Held, and with no outcome on its way: a lease missing for one of these was taken.
    var heldAndOpen: Set<Int> { Set(jobs.keys).subtracting(writing) }
    var isEmpty: Bool { jobs.isEmpty }
    var counts: (preparing: Int, total: Int) { (preparing.count, jobs.count) }

    /// Everything still held, emptied: for the hand-back at the end.
    func takeAll() -> [Job] {
        defer { jobs.removeAll(); preparing.removeAll(); writing.removeAll(); unwritten.removeAll(); aloneJobs.removeAll() }
        return Array(jobs.values)
    }
}
