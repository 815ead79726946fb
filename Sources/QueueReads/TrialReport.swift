import Foundation
import Postgres
import SQLSchema

/// A trial's comparison report (`discern trial report`, the console's trial page): how often the
/// candidate agrees with production per field, how often each is right where a person reviewed
/// the photo, each side's calibration, calls, cost and latency per photo. Built by one statement
/// (sql/queries/trials.sql, `report`).
public struct TrialReport: Codable, Sendable {
    /// One field compared on the photos both sides answered; the interval is Wilson's 95 %.
    public struct Field: Codable, Sendable {
        public let field: String
        public let n: Int
        public let agree: Int
        public let agreeLow: Double
        public let agreeHigh: Double
        /// Photos of the `n` a person reviewed (none for `subject_id`, which reviews do not cover),
        /// and how many each side had right.
        public let reviewed: Int
        public let productionRight: Int
        public let candidateRight: Int
        public let productionLow: Double?
        public let productionHigh: Double?
        public let candidateLow: Double?
        public let candidateHigh: Double?

        public var agreement: Double { n > 0 ? Double(agree) / Double(n) : 0 }
    }

    /// Right on every reviewed field, by the side's confidence band.
    public struct Calibration: Codable, Sendable {
        public let side: String
        public let band: String
        public let n: Int
        public let rightCount: Int
        public let low: Double
        public let high: Double
    }

    /// What each side took per photo.
    public struct Side: Codable, Sendable {
        public let side: String
        public let service: String
        public let photos: Int
        public let callsPerPhoto: Double?
        public let pricePerCall: Double?
        public let costPerPhoto: Double?
        public let latencyMsMedian: Double?
        public let latencyMsP95: Double?
        public let models: [String]
    }

    public let name: String
    public let service: String
    public let action: String
    public let productionService: String
    public let productionAction: String
    public let batch: String
    public let sampleCount: Int?
    public let share: Double?
    public let seed: Int
    public let candidate: [String: String]
    public let createdAt: String
    public let createdBy: String
    /// The sample's size, the photos the candidate answered, those compared (production answered
    /// too), those a person reviewed, and the candidate's failures by kind.
    public let sampled: Int
    public let answered: Int
    public let compared: Int
    public let reviewed: Int
    public let failed: [String: Int]
    public let fields: [Field]
    public let calibration: [Calibration]
    public let sides: [Side]
}

/// Every trial, newest first.
public struct TrialList: Codable, Sendable {
    public struct Item: Codable, Sendable {
        public let name: String
        public let service: String
        public let action: String
        public let productionService: String
        public let batch: String
        public let sampleCount: Int?
        public let share: Double?
        public let createdAt: String
        public let createdBy: String
        public let answered: Int
        public let failed: Int
    }

    public let items: [Item]
}

extension QueueReader {
    /// Nil when no trial has that name.
    public func trialReport(_ name: String) async throws -> TrialReport? {
        do {
            return try await document(TrialReport.self, Queries.Trials.Report(name: name))
        } catch ReadError.notFound {
            return nil
        }
    }

    public func trials() async throws -> TrialList {
        try await document(TrialList.self, Queries.Trials.List())
    }
}
