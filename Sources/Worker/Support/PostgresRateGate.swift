import ServiceClients
import Foundation
import JobQueue
import Logging
import Postgres
import Synchronization

/// Rate limits shared by every worker process: a schedule per key in `discern.rate_limits`
/// (sql/functions/take_rate_tokens.sql). Each call to a limited service takes the next free moment of its key
/// and waits until then, once: no polling, however many workers wait.
///
/// So that a limit far from binding costs no statement per call, a worker takes as many
/// consecutive slots at once as the limit allows in a quarter of a second (one, for a limit that
/// binds) and hands them to its own calls in order; a slot it cannot use in time is dropped,
/// never given to a later call. A key with no limit row is remembered as such for 10 s and costs
/// no statement at all (docs/decisions/0005-leased-rate-slots.md).
public final class PostgresRateGate: RateGate {
    private let database: Database
    private let logger: Logger
    /// Until when each key last made a call wait: what holds a run back, for the progress bar.
    private let waitingUntil = Mutex<[String: ContinuousClock.Instant]>([:])
    /// WeightedSemaphore taken and not used yet, per key, earliest first.
    private let leased = Mutex<[String: LeasedSlots]>([:])
    /// Keys found to have no limit, and until when that is believed.
    private let unlimited = Mutex<[String: ContinuousClock.Instant]>([:])
    static let unlimitedFor: Duration = .seconds(10)

    /// - Parameter database: a worker's queue connection (`WorkerConnections.queue`): a slot is
    ///   one short statement, and the wait for it happens after, without the connection.
    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// With a connection of its own (tests, tools).
    public convenience init(conninfo: String, logger: Logger) {
        self.init(database: Database(conninfo: conninfo, name: "discern-ratelimit"), logger: logger)
    }

    /// The server chose the slots at some moment within the reservation's round trip, and says
    /// each as seconds from that moment: so a slot is at most that far from the round trip's end
    /// and at least that far from its start. A call waits for the latest moment it could be
    /// (never early, which would bunch it with the calls of the next slots) and must leave by
    /// the earliest plus `RateSlot.maxLateness` (never later). A round trip longer than that
    /// allowance, a process or a server stalled by a loaded machine, leaves slots it cannot keep
    /// on either side: the call takes a new one (`slotMissed`, no attempt spent). Measured from
    /// the round trip's start only, a slot chosen by a server process that ran the statement a second
    /// late would send its call a second early, over the limit
    /// (docs/decisions/0006-rate-slot-timing.md). The wait for the slot happens where the call
    /// is sent (`RateSlot`).
    public func acquire(_ key: String) async throws(ServiceError) -> RateSlot {
        let now = ContinuousClock.now
        if let until = unlimited.withLock({ $0[key] }), until > now { return .anytime }
        if let slot = takeLeased(key, now: now) { return slot }
        let asked: ContinuousClock.Instant, answered: ContinuousClock.Instant, lease: RateLimits.Lease?
        do {
            (asked, answered, lease) = try await Retrying.database(logger: logger, "take rate-limit slots") {
                try await self.database.withConnection { connection in
                    let asked = ContinuousClock.now
                    let lease = try RateLimits.lease(connection, key: key, wanted: Self.leaseSize)
                    return (asked, ContinuousClock.now, lease)
                }
            }
        } catch {
            throw ServiceError(.rateLimiterUnavailable, "could not take a rate-limit slot for \(key): \(error)")
        }
        guard let lease else {
            unlimited.withLock { $0[key] = ContinuousClock.now + Self.unlimitedFor }
            return .anytime
        }
        // At the spend cap the call is not made: the job goes back to wait (JobExecution), and the
        // service is paused until the cap has room again.
        if lease.capped {
            // Not retryable within the attempt (it would only ask again): JobExecution hands the job back.
            throw ServiceError(.capReached, "\(key): the service's spend cap is reached (discern.service_budgets); the job waits until it has room")
        }
        // Only a limit set absurdly low (per_minute near 0) schedules calls hours away: then the
        // job goes back to the queue for that long instead of holding its lease.
        guard lease.firstWait <= Self.maxWaitSeconds else {
            throw ServiceError(
                .rateLimited,
                "the \(key) rate limit schedules this call \(String(format: "%.0f", lease.firstWait)) s from now; check discern.rate_limits",
                retryAfterSeconds: lease.firstWait)
        }
        let slots = Self.slots(lease, asked: asked, answered: answered)
        if slots.count > 1 { leased.withLock { $0[key, default: LeasedSlots()].append(slots.dropFirst()) } }
        return slot(slots[0], key: key, now: ContinuousClock.now)
    }

    /// A lease's slots between the round trip's start and end (see `acquire`): sent no sooner
    /// than the latest moment each can be, no later than the earliest plus the lateness allowed.
    static func slots(_ lease: RateLimits.Lease, asked: ContinuousClock.Instant, answered: ContinuousClock.Instant) -> [RateSlot] {
        (0..<lease.granted).map { index in
            let offset = Duration.seconds(max(0, lease.firstWait + Double(index) * lease.spacing))
            return RateSlot(sendAt: answered + offset, sendBy: asked + offset + RateSlot.maxLateness)
        }
    }

    /// WeightedSemaphore a lease asks for; the server grants fewer for a limit that binds.
    static let leaseSize = 64

    /// The earliest leased slot of `key` that can still be kept, dropping those already missed.
    private func takeLeased(_ key: String, now: ContinuousClock.Instant) -> RateSlot? {
        leased.withLock { $0[key]?.takeFirst(keptBy: now) }.map { slot($0, key: key, now: now) }
    }

    private func slot(_ slot: RateSlot, key: String, now: ContinuousClock.Instant) -> RateSlot {
        if let moment = slot.sendAt, moment > now {
            WorkerMetrics.rateLimitWait(key: key, seconds: (moment - now).seconds)
            waitingUntil.withLock { $0[key] = max($0[key] ?? moment, moment) }
        }
        return slot
    }

    static let maxWaitSeconds = 3600.0

    /// The keys that made a call wait within the last `seconds` (or still do), most recent first.
    public func limitingKeys(within seconds: Double = 3) -> [String] {
        let since = ContinuousClock.now - .seconds(seconds)
        return waitingUntil.withLock { $0.filter { $0.value > since }.sorted { $0.value > $1.value }.map(\.key) }
    }

    /// A missed slot comes off the billed calls, so a loaded worker's missed slots do not spend
    /// a spend cap with calls no service saw. Best effort: if it cannot be written, the count
    /// errs high, as it always may.
    public func unused(_ key: String) async {
        do {
            try await database.withConnection { try RateLimits.returnSlot($0, key: key) }
        } catch {
            logger.debug("could not return an unused rate-limit slot", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }

    public func rateLimited(_ key: String, retryAfterSeconds: Double?) async {
        // The schedule moves back for everyone; slots leased before the 429 must not be used.
        leased.withLock { $0[key] = nil }
        do {
            try await database.withConnection { try RateLimits.rateLimited($0, key: key, retryAfterSeconds: retryAfterSeconds) }
        } catch {
            logger.warning("could not record a 429 in the shared rate limit", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }
}

/// One key's leased slots, earliest first: taken from the front, so a call costs O(1) under the
/// lock every caller of the key shares, however many calls wait on it
/// (docs/decisions/0005-leased-rate-slots.md).
struct LeasedSlots {
    private var slots: [RateSlot] = []
    private var head = 0

    mutating func append(_ more: some Sequence<RateSlot>) {
        if head > 0 {
            slots.removeFirst(head)
            head = 0
        }
        slots.append(contentsOf: more)
    }

    /// The first slot that can still be kept at `now` (its `sendBy` not passed), dropping the
    /// missed ones before it; slots are in order, so those are all at the front.
    mutating func takeFirst(keptBy now: ContinuousClock.Instant) -> RateSlot? {
        while head < slots.count, let sendBy = slots[head].sendBy, sendBy < now { head += 1 }
        guard head < slots.count else { return nil }
        head += 1
        return slots[head - 1]
    }
}
