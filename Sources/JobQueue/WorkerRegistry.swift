import Postgres
import SQLSchema

/// The workers' registry (`discern.workers`): who works, for which services, and whether they
/// are alive: by the advisory lock their session holds (`presenceNamespace`, their
/// `presence_key`), or, for a worker that holds none, by their heartbeats.
public enum WorkerRegistry {
    /// The advisory locks' first key: the second is the worker's `presence_key`.
    public static let presenceNamespace = QueueConstants.presenceNamespace
    public struct Entry: Sendable {
        public let id: String
        public let host: String
        public let pid: Int
        public let version: String
        public let services: [String]
        public let heartbeatSeconds: Double

        public init(id: String, host: String, pid: Int, version: String, services: [String], heartbeatSeconds: Double) {
            self.id = id
            self.host = host
            self.pid = pid
            self.version = version
            self.services = services
            self.heartbeatSeconds = heartbeatSeconds
        }
    }

    /// Registers the worker; with `presence`, returns the key of the lock its session is to
    /// hold (the same one again for a worker registering again).
    @discardableResult
    public static func register(_ connection: Connection, _ entry: Entry, presence: Bool = false) throws -> Int32? {
        let key = try connection.run(
            Queries.Workers.Register(
                worker: entry.id, host: entry.host, pid: entry.pid, version: entry.version, services: BinaryArray(entry.services),
                heartbeatSeconds: entry.heartbeatSeconds, presence: presence)
        ).first?.presenceKey
        return key.flatMap { Int32(exactly: $0) }
    }

    /// Renews the worker's heartbeat, then the leases of the jobs it holds (two statements on
    /// one connection; a job whose row its own completion holds is skipped, not waited for, and
    /// still counts as the worker's); returns the jobs still its own.
    /// `finished`: jobs finished (succeeded or dead) since the worker started, and how many a
    /// minute lately (nil until it knows), for the console's /workers.
    public static func heartbeat(
        _ connection: Connection, workerID: String, jobIDs: [Int], leaseSeconds: Double,
        finished: Int = 0, perMinute: Double? = nil
    ) throws -> Set<Int> {
        try connection.run(Queries.Workers.Heartbeat(worker: workerID, finished: finished, perMinute: perMinute))
        return try JobQueue.heartbeat(connection, jobIDs: jobIDs, workerID: workerID, leaseSeconds: leaseSeconds)
    }

    public static func stopped(_ connection: Connection, workerID: String) throws {
        try connection.run(Queries.Workers.Stopped(worker: workerID))
    }

    /// Forgets workers stopped or silent for more than a day.
    @discardableResult
    public static func forgetOld(_ connection: Connection) throws -> Int {
        try connection.execute(Queries.Workers.ForgetOld())
    }
}
