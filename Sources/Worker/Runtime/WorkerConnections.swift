import Postgres

/// A worker's connection budget: **three connections at most**, whatever its concurrency, so
/// one PostgreSQL serves many workers (docs/scaling.md).
///   1. `queue`: claims, heartbeats and lease renewals, rescue, depth samples and rate-limit
///      slots. Short statements, one at a time; a rate-limit wait sleeps without holding it.
///   2. `writes`: completions, batched, and the dashboards' roll-ups: the only connection that
///      carries result rows, so a slow write (a roll-up after a large enqueue) never delays a
///      claim or a heartbeat.
///   3. LISTEN on `listenConninfo`, idle until a job is enqueued.
/// Behind a transaction-mode pooler (`PoolMode.transaction`: PgBouncer before 1.21 keeps
/// neither prepared statements nor LISTEN across transactions) statements are not prepared,
/// and LISTEN needs a direct URL (`listenConninfo`); without one the producer polls every
/// poll interval, which is then the latency from enqueue to claim.
public struct WorkerConnections: Sendable {
    public let queue: Database
    public let writes: Database
    /// Where to LISTEN for new jobs; nil: poll.
    public let listenConninfo: String?
    public let poolMode: PoolMode

    public init(conninfo: String, poolMode: PoolMode = .direct, listenConninfo: String? = nil) {
        let session = SessionOptions(poolMode: poolMode)
        queue = Database(conninfo: conninfo, name: "discern-queue", session: session)
        writes = Database(conninfo: conninfo, name: "discern-complete", session: session)
        self.listenConninfo = listenConninfo ?? (poolMode == .direct ? conninfo : nil)
        self.poolMode = poolMode
    }
}
