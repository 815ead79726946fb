import Foundation

/// What the probes answer (`/healthz`, `/readyz` beside `/metrics`).
///
/// **Live** means the worker's loops are turning: the heartbeat loop, which runs on the same
/// cooperative pool as every other loop, came round within three heartbeats (plus slack). A
/// database outage does not make a worker un-live: restarting it would not bring PostgreSQL
/// back, and its loops retry on their own.
///
/// **Ready** means connected to PostgreSQL and serving: registered, the last heartbeat reached
/// the database, recently, and no shutdown has begun.
public final class Health: @unchecked Sendable {
    private let lock = NSLock()
    private let heartbeatSeconds: Double
    private var lastTurn = Date()
    private var lastDatabaseSuccess: Date?
    private var databaseFailing = false
    private var stopping = false

    public init(heartbeatSeconds: Double) {
        self.heartbeatSeconds = heartbeatSeconds
    }

    func loopTurned() { lock.withLock { lastTurn = Date() } }

    func databaseReached() {
        lock.withLock {
            lastDatabaseSuccess = Date()
            databaseFailing = false
        }
    }

    func databaseFailed() { lock.withLock { databaseFailing = true } }

    func shuttingDown() { lock.withLock { stopping = true } }

    /// nil when live; else why not.
    public func livenessProblem(now: Date = Date()) -> String? {
        lock.withLock {
            let silent = now.timeIntervalSince(lastTurn)
            return silent <= 3 * heartbeatSeconds + 30 ? nil : "the heartbeat loop has not turned for \(silent.formatted(.number.precision(.fractionLength(0)))) s"
        }
    }

    /// nil when ready; else why not.
    public func readinessProblem(now: Date = Date()) -> String? {
        lock.withLock {
            if stopping { return "shutting down" }
            guard let success = lastDatabaseSuccess else { return "not yet registered with PostgreSQL" }
            if databaseFailing { return "the last heartbeat could not reach PostgreSQL" }
            let age = now.timeIntervalSince(success)
            return age <= 3 * heartbeatSeconds ? nil : "no heartbeat reached PostgreSQL for \(age.formatted(.number.precision(.fractionLength(0)))) s"
        }
    }
}
