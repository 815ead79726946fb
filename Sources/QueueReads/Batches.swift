import Foundation
import SQLSchema

/// Page 2: the newest batches with progress, rate, ETA, outcomes, top errors and bytes saved.
public struct BatchSummary: Codable, Sendable {
    public struct Outcome: Codable, Sendable { public let outcome: String; public let results: Int }
    public struct Error: Codable, Sendable { public let errorKind: String?; public let jobs: Int; public let example: String? }

    public let id: Int
    public let name: String
    public let createdAt: String
    public let jobs: Int
    public let available: Int
    public let running: Int
    public let succeeded: Int
    public let dead: Int
    public let cancelled: Int
    /// Jobs finished in the last 10 minutes, per minute.
    public let perMinute: Double
    /// Seconds from the first finished job to the last one.
    public let finishingSeconds: Double?
    public let originalBytes: Int
    public let sentBytes: Int
    public let outcomes: [Outcome]
    public let errors: [Error]
    /// No worker has heartbeated lately: whatever the last minutes' rate, nothing moves now.
    public let noLiveWorker: Bool
    /// The batch's last end as announced (migration 0031), and its deliveries; nil while it has
    /// not ended (or settled).
    public let webhook: Webhook?

    public struct Webhook: Codable, Sendable {
        public let announcedAt: String
        public let delivered: Int
        public let pending: Int
        public let failed: Int
        /// The latest failure a delivery met, if any (it names the destination, never its URL).
        public let lastError: String?

        /// "delivered", "delivered 1 of 2, 1 retrying: …", "no destination": for a table cell.
        public var summary: String {
            let total = delivered + pending + failed
            if total == 0 { return "no destination" }
            if delivered == total { return total == 1 ? "delivered" : "delivered to \(total)" }
            var parts = delivered > 0 ? ["delivered \(delivered) of \(total)"] : []
            if pending > 0 { parts.append("\(pending) retrying") }
            if failed > 0 { parts.append("\(failed) given up") }
            return parts.joined(separator: ", ") + (lastError.map { ": \($0.prefix(120))" } ?? "")
        }
    }

    public var done: Int { succeeded + dead + cancelled }
    public var isFinished: Bool { available + running == 0 }
    public var percentDone: Double { jobs == 0 ? 100 : 100 * Double(done) / Double(jobs) }
    /// Seconds until the rest is done at the current rate; nil when nothing moves (no rate, or
    /// no live worker to keep it).
    public var etaSeconds: Double? {
        let left = available + running
        return left == 0 || perMinute <= 0 || noLiveWorker ? nil : Double(left) / perMinute * 60
    }
    /// Every job was cancelled before it ran: not a finished batch to be green about.
    public var isCancelledWhole: Bool { jobs > 0 && cancelled == jobs }
    /// A finished batch's pace from its first to its last finished job, per minute.
    public var averagePerMinute: Double? {
        guard let seconds = finishingSeconds, seconds > 0 else { return nil }
        return Double(done) / seconds * 60
    }
}

/// Where one batch stands, read fresh (no cached summary): for `discern batches wait`.
public struct BatchState: Codable, Sendable {
    public let name: String
    public let jobs: Int
    public let waiting: Int
    public let dead: Int
    public var isFinished: Bool { waiting == 0 }
}

extension QueueReader {
    /// Throws `ReadError.notFound` when there is no batch of that name.
    public func batchState(named name: String) async throws -> BatchState {
        try await document(BatchState.self, Queries.Batches.State(name: name))
    }

    /// The newest `limit` batches, or those older than the batch `before` (keyset pages).
    public func batches(named name: String? = nil, before: Int? = nil, limit: Int = BatchSummary.pageSize) async throws -> [BatchSummary] {
        try await document([BatchSummary].self, Queries.Batches.Summaries(name: name, limit: limit, before: before))
    }
}

extension BatchSummary {
    public static let pageSize = 10
}
