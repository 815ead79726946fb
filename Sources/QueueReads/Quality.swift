import Foundation
import Postgres
import SQLSchema

/// How right the service is, measured from audit reviews only: per service and
/// field, accuracy with its 95 % Wilson interval, by confidence band (a tenth wide), and the
/// kinds of error. With the results written in the same period by band, it says which review
/// threshold keeps the errors left after review under a target (`recommendation`). The
/// console's quality page, `/api/quality` and `discern quality` print this view.
public struct Quality: Codable, Sendable {
    public struct Row: Codable, Sendable {
        public let service: String
        public let field: String
        /// `0.0` ... `0.9` (confidence from the band's value to the next tenth), `none` for results
        /// without a confidence, `all` for the whole.
        public let band: String
        public let n: Int
        public let right: Int
        public let wrong: Int
        public let missing: Int
        public let invented: Int
        public let accuracy: Double
        public let accuracyLow: Double
        public let accuracyHigh: Double
    }

    /// Every result of the period by service and band, audited or not: what a threshold costs.
    public struct Written: Codable, Sendable {
        public let service: String
        public let band: String
        public let results: Int
    }

    public struct Sample: Codable, Sendable {
        public let service: String
        public let audited: Int
        public let reviewed: Int
        public let cannotTell: Int
        public let pending: Int
    }

    public let rows: [Row]
    public let written: [Written]
    public let samples: [Sample]
    /// Calendar days the period spans, today included (at least one): reviews a day are per
    /// day of it.
    public let days: Double
    public let generatedAt: String
    /// Filled in by the reader for the asked field and target.
    public var recommendation: Recommendation?

    public static let fields = ["license_plate", "fleet_id", "operator", "category"]

    /// The fewest reviews that keep the errors left after review within a target.
    public struct Recommendation: Codable, Sendable, Equatable {
        public let service: String
        public let field: String
        /// The largest share of all results that may be wrong after review, e.g. 0.02.
        public let target: Double
        /// Review every result with confidence below this; nil when no threshold reaches the
        /// target on what was measured (review everything, or audit more).
        public let reviewBelow: Double?
        /// The share of results still wrong after that review, at the measured accuracy's
        /// pessimistic end (the lower bound of each band's interval; a band never audited
        /// counts as always wrong).
        public let errorsAfterReviewAtMost: Double?
        /// Results a day below the threshold.
        public let reviewsPerDay: Double?
    }
}

/// What the quality view is asked for.
public struct QualityFilter: Sendable, Equatable {
    public var batch: String?
    /// Results written since this moment; nil: all.
    public var since: Date?
    public var service: String?
    /// The field and target the recommendation is for.
    public var field = "license_plate"
    public var target = 0.02

    public init(batch: String? = nil, since: Date? = nil, service: String? = nil, field: String = "license_plate", target: Double = 0.02) {
        (self.batch, self.since, self.service, self.field, self.target) = (batch, since, service, field, target)
    }

    var statement: Queries.Quality.Document {
        Queries.Quality.Document(batch: batch, since: since.map { ISO8601DateFormatter().string(from: $0) }, service: service)
    }
}

extension Quality {
    /// The lowest band edge (0.0, 0.1, ... 1.0) such that reviewing every result below it leaves
    /// at most `target` of all results wrong, counting each band above it at its accuracy's
    /// lower bound. Reviewing is taken to fix what it finds.
    public func recommend(service: String, field: String, target: Double) -> Recommendation {
        let bands = (0..<10).map { String(format: "%.1f", Double($0) / 10) }
        let written = Dictionary(uniqueKeysWithValues: self.written.filter { $0.service == service }.map { ($0.band, $0.results) })
        let low = Dictionary(uniqueKeysWithValues: rows.filter { $0.service == service && $0.field == field }.map { ($0.band, $0.accuracyLow) })
        let total = written.values.reduce(0, +)
        // Nothing reviewed, nothing measured: "review everything" would read as a finding.
        guard total > 0, !low.isEmpty else {
            return Recommendation(service: service, field: field, target: target, reviewBelow: nil, errorsAfterReviewAtMost: nil, reviewsPerDay: nil)
        }
        // Results without a confidence are never below a threshold: they count as they measured.
        let unbanded = Double(written["none"] ?? 0) * (1 - (low["none"] ?? 0))
        for edge in 0...10 {
            let kept = bands[edge...].reduce(unbanded) { $0 + Double(written[$1] ?? 0) * (1 - (low[$1] ?? 0)) }
            let share = kept / Double(total)
            if share <= target {
                let reviewed = bands[..<edge].reduce(0) { $0 + (written[$1] ?? 0) }
                return Recommendation(
                    service: service, field: field, target: target, reviewBelow: Double(edge) / 10,
                    errorsAfterReviewAtMost: share, reviewsPerDay: Double(reviewed) / days)
            }
        }
        return Recommendation(service: service, field: field, target: target, reviewBelow: nil, errorsAfterReviewAtMost: nil, reviewsPerDay: nil)
    }
}

extension QueueReader {
    public func quality(_ filter: QualityFilter) async throws -> Quality {
        var quality = try await document(Quality.self, filter.statement)
        let service = filter.service ?? quality.samples.max { $0.audited < $1.audited }?.service ?? quality.written.first?.service
        quality.recommendation = service.map { quality.recommend(service: $0, field: filter.field, target: filter.target) }
        return quality
    }
}
