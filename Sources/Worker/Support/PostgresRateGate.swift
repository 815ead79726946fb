import Backends
import Foundation
import JobQueue
import Logging
import Postgres
import Synchronization

/// Rate limits shared by every worker process: a schedule per key in `discern.rate_limits`
/// (sql/migrations/0005). Each call to a limited service reserves the next free moment of its
/// key and sleeps until then, once: no polling, however many workers wait.
public final class PostgresRateGate: RateGate {
    private let database: Database
    private let logger: Logger
    /// Until when each key last made a call wait: what holds a run back, for the progress bar.
    private let waitingUntil = Mutex<[String: ContinuousClock.Instant]>([:])

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

    /// The slot is measured from the moment the reservation was asked for: the server chose it
    /// somewhere within that round trip, so a slow round trip counts as lateness too. The wait
    /// for the slot happens where the call is sent (`RateSlot`).
    public func acquire(_ key: String) async throws(BackendError) -> RateSlot {
        let asked: ContinuousClock.Instant, reserved: Double?
        do {
            (asked, reserved) = try await Retrying.database(logger: logger, "take a rate-limit slot") {
                try await self.database.withConnection { connection in
                    let asked = ContinuousClock.now
                    return (asked, try RateLimits.reserve(connection, key: key))
                }
            }
        } catch {
            throw BackendError(.rateLimiterUnavailable, "could not take a rate-limit slot for \(key): \(error)", retryable: true)
        }
        guard let wait = reserved else { return .anytime }
        // Only a limit set absurdly low (per_minute near 0) schedules calls hours away: then the
        // job goes back to the queue for that long instead of holding its lease.
        guard wait <= Self.maxWaitSeconds else {
            throw BackendError(.rateLimited, "the \(key) rate limit schedules this call \(String(format: "%.0f", wait)) s from now; check discern.rate_limits",
                               retryable: true, retryAfterSeconds: wait)
        }
        let slot = asked + .seconds(wait)
        if wait > 0 {
            WorkerMetrics.rateLimitWait(key: key, seconds: wait)
            waitingUntil.withLock { $0[key] = max($0[key] ?? slot, slot) }
        }
        return RateSlot(sendAt: slot, sendBy: slot + .seconds(RateSlot.maxLatenessSeconds))
    }

    static let maxWaitSeconds = 3600.0

    /// The keys that made a call wait within the last `seconds` (or still do), most recent first.
    public func limitingKeys(within seconds: Double = 3) -> [String] {
        let since = ContinuousClock.now - .seconds(seconds)
        return waitingUntil.withLock { $0.filter { $0.value > since }.sorted { $0.value > $1.value }.map(\.key) }
    }

    public func rateLimited(_ key: String, retryAfterSeconds: Double?) async {
        do {
            try await database.withConnection { try RateLimits.rateLimited($0, key: key, retryAfterSeconds: retryAfterSeconds) }
        } catch {
            logger.warning("could not record a 429 in the shared rate limit", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }
}
