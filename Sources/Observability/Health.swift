import Foundation
import Synchronization

/// What the probes answer (`/healthz`, `/readyz` beside `/metrics`).
///
/// **Live** means the worker's loops are turning: the heartbeat loop, which runs on the same
/// cooperative pool as every other loop, came round within three heartbeats (plus slack). A
/// database outage does not make a worker un-live: restarting it would not bring PostgreSQL
/// back, and its loops retry on their own.
///
/// **Ready** means connected to PostgreSQL and serving: registered, the last heartbeat reached
/// the database, recently, and no shutdown has begun.
public final class Health: Sendable {
    private struct State {
        var lastTurn = Date()
        var lastDatabaseSuccess: Date?
        var databaseFailing = false
        var stopping = false
    }
    private let heartbeatSeconds: Double
    private let state = Mutex(State())

    public init(heartbeatSeconds: Double) {
        self.heartbeatSeconds = heartbeatSeconds
    }

    public func loopTurned() { state.withLock { $0.lastTurn = Date() } }

    public func databaseReached() {
        state.withLock {
            $0.lastDatabaseSuccess = Date()
            $0.databaseFailing = false
        }
    }

    public func databaseFailed() { state.withLock { $0.databaseFailing = true } }

    public func shuttingDown() { state.withLock { $0.stopping = true } }

    /// nil when live; else why not.
    public func livenessProblem(now: Date = Date()) -> String? {
        let silent = now.timeIntervalSince(state.withLock { $0.lastTurn })
        return silent <= 3 * heartbeatSeconds + 30
            ? nil : "the heartbeat loop has not turned for \(silent.formatted(.number.precision(.fractionLength(0)))) s"
    }

    /// nil when ready; else why not.
    public func readinessProblem(now: Date = Date()) -> String? {
        let current = state.withLock { $0 }
        if current.stopping { return "shutting down" }
        guard let success = current.lastDatabaseSuccess else { return "not yet registered with PostgreSQL" }
        if current.databaseFailing { return "the last heartbeat could not reach PostgreSQL" }
        let age = now.timeIntervalSince(success)
        return age <= 3 * heartbeatSeconds ? nil : "no heartbeat reached PostgreSQL for \(age.formatted(.number.precision(.fractionLength(0)))) s"
    }
}
