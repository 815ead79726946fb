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

    func claimed(_ claimed: [Job]) {
        for job in claimed {
            jobs[job.id] = job
            preparing.insert(job.id)
        }
    }

    /// The job left the prepare stage (prepared, or failed in it).
    func prepared(_ id: Int) {
        if preparing.remove(id) != nil { onFreed() }
    }

    /// The completer is writing these jobs' outcomes.
    func writing(_ ids: [Int]) { writing.formUnion(ids) }

    func finished(_ id: Int) {
        preparing.remove(id)
        writing.remove(id)
        if jobs.removeValue(forKey: id) != nil { onFreed() }
    }

    /// How many jobs may be claimed now: room in the prepare stage (`prepareQueue` claimed for
    /// it at once), and in the whole pipeline (the network slots plus the prepared jobs allowed
    /// to wait for one), so no job holds a lease for long behind a saturated stage. None while a
    /// job that must run alone is held (`Job.runsAlone`).
    func room(prepareQueue: Int, concurrency: Int) -> Int {
        guard !jobs.values.contains(where: \.runsAlone) else { return 0 }
        return max(0, min(prepareQueue - preparing.count, concurrency + prepareQueue - jobs.count))
    }

    var ids: [Int] { Array(jobs.keys) }
    /// Held, and with no outcome on its way: a lease missing for one of these was taken.
    var heldAndOpen: Set<Int> { Set(jobs.keys).subtracting(writing) }
    var isEmpty: Bool { jobs.isEmpty }
    var counts: (preparing: Int, total: Int) { (preparing.count, jobs.count) }

    /// Everything still held, emptied: for the hand-back at the end.
    func takeAll() -> [Job] {
        defer { jobs.removeAll(); preparing.removeAll(); writing.removeAll() }
        return Array(jobs.values)
    }
}
