import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Keeps this worker known and its jobs its own: registers it (`discern.workers`) and gives
/// `presence` the key of the lock that proves it alive, then every `heartbeatSeconds` renews its
/// heartbeat and the leases of the jobs it holds. A job whose lease was taken meanwhile
/// (cancelled, rescued) is abandoned. Shut down after the executor, so leases stay alive while
/// jobs in flight finish; it then marks the worker stopped.
struct Heartbeat: Service {
    let database: Database
    let entry: WorkerRegistry.Entry
    /// Nil: the worker has no session of its own to hold a lock on (a transaction pooler).
    let presence: SessionLock?
    let leaseSeconds: Double
    let inFlight: InFlight
    let abandonments: Abandonments
    let health: Health
    let tally: OutcomeCounts
    let logger: Logger

    func run() async {
        var registered = await register(attempts: 8)
        var pace = Pace()
        var failingSince: ContinuousClock.Instant?
        await Periodic.run(every: entry.heartbeatSeconds, pauseFirst: true) {
            health.loopTurned()
            // A worker that could not register at start (the database away) keeps trying: unregistered,
            // its jobs would be handed back whenever a lease ran out.
            if !registered { registered = await register(attempts: 1) }
            let summary = await tally.summary
            pace.add(finished: summary.succeeded + summary.dead)
            let beaten = await beat(pace)
            if !beaten {
                failingSince = failingSince ?? .now
            } else if let since = failingSince {
                // Said once per outage: when this worker's leases were renewed again is what a
                // rescuer waiting for it after a restart or failover depends on.
                logger.notice("heartbeat renewed again", metadata: ["failing_seconds": "\(Int((ContinuousClock.now - since).seconds))"])
                failingSince = nil
            }
        }
        let workerID = entry.id
        _ = try? await database.withConnection { try WorkerRegistry.stopped($0, workerID: workerID) }
    }

    /// Registers the worker and hands `presence` its lock's key; false when the database could not be reached.
    private func register(attempts: Int) async -> Bool {
        let entry = self.entry, proves = presence != nil
        do {
            let key = try await Retrying.database(logger: logger, "register the worker", attempts: attempts) {
                try await self.database.withConnection { try WorkerRegistry.register($0, entry, presence: proves) }
            }
            if let key { presence?.hold(key: key) }
            health.databaseReached()
            return true
        } catch {
            health.databaseFailed()
            logger.warning("could not register the worker; it works and tries again at its next heartbeat", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// False when the database could not be reached.
    private func beat(_ pace: Pace) async -> Bool {
        let ids = await inFlight.ids, workerID = entry.id, lease = leaseSeconds
        let finished = pace.finished, perMinute = pace.perMinute
        do {
            // A connection lost since the last beat is noticed only now: a new one is tried at once,
            // so a blip costs no beat (rescuers count missed beats of a worker whose session is gone).
            let kept = try await Retrying.database(logger: logger, "heartbeat", attempts: 3) {
                try await database.withConnection {
                    try WorkerRegistry.heartbeat($0, workerID: workerID, jobIDs: ids, leaseSeconds: lease, finished: finished, perMinute: perMinute)
                }
            }
            health.databaseReached()
            // Jobs finished meanwhile, or whose outcome is being written, are not lost; only
            // those still held with nothing on its way are.
            let held = await inFlight.heldAndOpen
            let lost = Set(ids).subtracting(kept).intersection(held).sorted()
            if !lost.isEmpty {
                logger.warning("jobs in flight were cancelled or rescued; abandoning them", metadata: ["jobs": "\(lost)"])
                abandonments.abandon(lost)
            }
            return true
        } catch {
            health.databaseFailed()
            logger.warning("heartbeat failed; will try again", metadata: ["error": "\(error)"])
            return false
        }
    }
}

/// How fast this worker finishes jobs: the count at each heartbeat of the last minute or so.
struct Pace {
    private var samples: [(at: ContinuousClock.Instant, finished: Int)] = []

    var finished: Int { samples.last?.finished ?? 0 }

    /// Jobs a minute from the oldest sample kept to the newest; nil with less than two.
    var perMinute: Double? {
        guard let first = samples.first, let last = samples.last, first.at < last.at else { return nil }
        return Double(last.finished - first.finished) * 60 / (last.at - first.at).seconds
    }

    mutating func add(finished: Int, at now: ContinuousClock.Instant = .now) {
        samples.append((now, finished))
        // Keep the newest sample at least a minute old as the window's start.
        while samples.count > 2 && now - samples[1].at >= .seconds(60) { samples.removeFirst() }
    }
}
