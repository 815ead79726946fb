import Foundation
import SQLSchema

/// The console's first page and `discern status`: the queue by service and state (succeeded and
/// cancelled: those that finished in the last 24 hours), succeeded jobs in the last full minute
/// and the last hour, finished jobs per hour, live workers, services waiting with no worker, rate
/// limits and what waits on them, dead jobs by kind. Every part reads a partial index or a
/// roll-up, never every job.
public struct Overview: Codable, Sendable {
    public struct StateCount: Codable, Sendable { public let service: String; public let state: String; public let jobs: Int }
    public struct Hour: Codable, Sendable { public let hour: String; public let succeeded: Int; public let dead: Int }
    public struct Worker: Codable, Sendable {
        public let id: String; public let host: String; public let version: String; public let services: [String]
        public let startedAt: String; public let lastHeartbeatAt: String
    }
    public struct RateLimit: Codable, Sendable {
        public let key: String; public let perMinute: Double; public let burst: Double; public let nextAt: String?
        public let waitingJobs: Int
    }
    public struct DeadKind: Codable, Sendable {
        public let service: String; public let errorKind: String?; public let jobs: Int; public let example: String?
        public let lastSeen: String?
    }

    public let states: [StateCount]
    public let hours: [Hour]
    public let workers: [Worker]
    public let rateLimits: [RateLimit]
    public struct Unserved: Codable, Sendable { public let service: String; public let waiting: Int }

    public let deadByKind: [DeadKind]
    /// Jobs that succeeded in the last full minute (by minute of the roll-up).
    public let succeededLastMinute: Int
    /// Jobs that succeeded in the minutes that began in the last hour.
    public let succeededLastHour: Int
    /// Services with jobs waiting and no live worker serving them (paused ones apart).
    public let unserved: [Unserved]
    public struct Paused: Codable, Sendable {
        public let service: String; public let pausedBy: String; public let pausedAt: String; public let reason: String?
    }
    /// Services an operator paused: no worker claims their jobs (discern.pause).
    public let paused: [Paused]
    /// A service the workers found down (its breaker open, discern.service_breakers): no job of
    /// it is claimed but one probe at a time, until the service answers or `discern resume`.
    public struct Unavailable: Codable, Sendable {
        public let service: String
        public let since: String
        /// The worker whose calls tripped it.
        public let openedBy: String
        /// What the last failed call said (the tripping one, then each failed probe's).
        public let errorKind: String; public let lastError: String
        public let probesFailed: Int
        /// Seconds until the next probe may go (0: due, or under way).
        public let nextProbeSeconds: Double
        /// A probe is in flight now.
        public let probing: Bool
        /// Its jobs waiting to be claimed.
        public let waiting: Int
    }
    public let unavailable: [Unavailable]
    public let generatedAt: String
}

extension QueueReader {
    public func overview() async throws -> Overview { try await document(Overview.self, Queries.Overview.Document()) }
}
