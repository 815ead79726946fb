import Foundation
import SQLSchema

/// The console's /workers: each worker of the last day, live or stopped, what it holds now
/// (running jobs leased to it) and since when. From discern.workers and the
/// running jobs' leases, never every job.
public struct WorkerList: Codable, Sendable {
    public struct Worker: Codable, Sendable {
        public let id: String; public let host: String; public let pid: Int; public let version: String
        public let services: [String]; public let startedAt: String; public let lastHeartbeatAt: String
        public let stoppedAt: String?
        /// Heartbeating now (three missed heartbeats and it is taken for dead).
        public let live: Bool
        public let jobsHeld: Int
        /// When the oldest job it holds was last changed (claimed or heartbeated).
        public let holdingSince: String?
        /// Jobs it finished (succeeded or dead) since it started, and a minute over the last
        /// minute (nil until its second heartbeat), from its heartbeats.
        public let jobsFinished: Int
        public let jobsPerMinute: Double?
    }
    public let workers: [Worker]
}

extension QueueReader {
    public func workers() async throws -> WorkerList {
        try await document(WorkerList.self, Queries.WorkersPage.Document())
    }
}
