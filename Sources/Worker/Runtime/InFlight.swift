import JobQueue

/// The jobs this worker holds, each with a ticket saying where it is on its way: claimed by the
/// producer (`preparing`), prepared (`running`: waiting for or in its call), its outcome ready
/// (`unwritten`), its outcome in a statement (`writing`), then let go by the completer. Every
/// service that moves a job moves its ticket here, forward only, and nowhere else: the producer
/// sizes its claims to the room the tickets leave, the heartbeat renews their leases, the
/// rescuer leaves them alone, and at the end whatever is still held is handed back.
/// What a job's attempt counts for (spent, handed back later, handed back at once) is its `JobOutcome`.
actor InFlight {
    /// Where a held job is, in the order it goes.
    enum Stage: Int, Comparable {
        case preparing, running, unwritten, writing
        static func < (left: Stage, right: Stage) -> Bool { left.rawValue < right.rawValue }
    }

    private struct Ticket {
        let job: Job
        var stage: Stage
    }

    private var tickets: [Int: Ticket] = [:]
    /// Kept with the tickets so `room`, asked before every claim, need not look through every one.
    private var preparingCount = 0, outcomeCount = 0
    /// Held jobs that must run alone (`Job.runsAlone`).
    private var aloneJobs: Set<Int> = []
    /// Let go of with their outcomes still being written (`letGo`, `settled`).
    private var settling: Set<Int> = []
    /// A moving average of how long preparing a job takes (nil until one was).
    private var preparationSeconds: Double?
    private let onFreed: @Sendable () -> Void

    /// Below this, preparation is no stage to wait in (jobs that send no file, tiny images):
    /// claims fill the whole pipeline instead of the prepare queue alone.
    static let cheapPreparationSeconds = 0.002

    /// - Parameter onFreed: told when room was freed (the producer may claim again).
    init(onFreed: @escaping @Sendable () -> Void) { self.onFreed = onFreed }

    /// Holds the claimed jobs; returns those to run. A job this worker is still running comes
    /// back from a claim when another worker took this one for stopped (a starved process beats
    /// late) and handed it back: the lease is this worker's again, and the run under way keeps
    /// it. Running it twice at once would call the service twice for one result.
    func claimed(_ claimed: [Job]) -> (fresh: [Job], running: [Int]) {
        var fresh: [Job] = [], running: [Int] = []
        for job in claimed {
            guard tickets[job.id] == nil else {
                running.append(job.id)
                continue
            }
            fresh.append(job)
            tickets[job.id] = Ticket(job: job, stage: .preparing)
            preparingCount += 1
            if job.runsAlone { aloneJobs.insert(job.id) }
        }
        return (fresh, running)
    }

    /// The job left the prepare stage (prepared, or failed in it), `seconds` after it entered.
    func prepared(_ id: Int, seconds: Double? = nil) {
        if let seconds { preparationSeconds = preparationSeconds.map { 0.9 * $0 + 0.1 * seconds } ?? seconds }
        if move(id, to: .running) { onFreed() }
    }

    /// The job's outcome is on its way to the completer: it takes no more room in the stages,
    /// only in the completer's backlog (`room`).
    func outcomeReady(_ id: Int) {
        if move(id, to: .unwritten) { onFreed() }
    }

    /// The completer is writing these jobs' outcomes: a lease found gone for one of them is
    /// its write's doing, not a lost lease (`heldAndOpen`).
    func writing(_ ids: [Int]) {
        var freed = false
        for id in ids where move(id, to: .writing) { freed = true }
        if freed { onFreed() }
    }

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

    /// No longer held: their outcomes are written.
    func finished(_ ids: [Int]) {
        var freed = false
        for id in ids {
            guard let ticket = tickets.removeValue(forKey: id) else { continue }
            if ticket.stage == .preparing { preparingCount -= 1 }
            if ticket.stage >= .unwritten { outcomeCount -= 1 }
            aloneJobs.remove(id)
            freed = true
        }
        if freed { onFreed() }
    }

    /// Moves a ticket forward (never back); true when that freed room in a stage.
    private func move(_ id: Int, to stage: Stage) -> Bool {
        guard var ticket = tickets[id], ticket.stage < stage else { return false }
        let leftPreparing = ticket.stage == .preparing, outcomeNow = ticket.stage < .unwritten && stage >= .unwritten
        if leftPreparing { preparingCount -= 1 }
        if outcomeNow { outcomeCount += 1 }
        ticket.stage = stage
        tickets[id] = ticket
        return leftPreparing || outcomeNow
    }

    /// How many jobs may be claimed now: room in the prepare stage (`prepareQueue` claimed for
    /// it at once), and in the whole pipeline (the network slots plus the prepared jobs allowed
    /// to wait for one), so no job holds a lease for long behind a saturated stage. None while a
    /// job that must run alone is held (`Job.runsAlone`).
    /// When preparing costs next to nothing, a claim may fill the whole pipeline at once: a
    /// claim of two no-op jobs at a time leaves a worker waiting on claims (bench/scale). A job
    /// whose outcome waits to be written takes no room in the stages, so claims and writes
    /// overlap; the completer's backlog is bounded by `maxUnwritten` instead.
    func room(prepareQueue: Int, concurrency: Int, maxUnwritten: Int) -> Int {
        guard aloneJobs.isEmpty else { return 0 }
        let pipeline = min(concurrency + prepareQueue - (tickets.count - outcomeCount), maxUnwritten - outcomeCount)
        let cheap = (preparationSeconds ?? .infinity) < Self.cheapPreparationSeconds
        return max(0, min(cheap ? pipeline : prepareQueue - preparingCount, pipeline))
    }

    var ids: [Int] { Array(tickets.keys) }
    /// Held, or let go with an outcome still being written: this worker's, not orphans.
    var accountedFor: [Int] { Array(settling.union(tickets.keys)) }
    /// Held, and with no outcome being written: a lease missing for one of these was taken.
    var heldAndOpen: Set<Int> { Set(tickets.lazy.filter { $0.value.stage != .writing }.map(\.key)) }
    var isEmpty: Bool { tickets.isEmpty }
    var counts: (preparing: Int, total: Int) { (preparingCount, tickets.count) }

    /// Everything still held, emptied: for the hand-back at the end.
    func takeAll() -> [Job] {
        defer { tickets.removeAll(); preparingCount = 0; outcomeCount = 0; aloneJobs.removeAll() }
        return tickets.values.map(\.job)
    }
}
