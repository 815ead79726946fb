import Foundation
import Postgres

/// How right the service is, measured from audit reviews only: per backend and
/// field, accuracy with its 95 % Wilson interval, by confidence band (a tenth wide), and the
/// kinds of error. With the results written in the same period by band, it says which review
/// threshold keeps the errors left after review under a target (`recommendation`). The
/// console's quality page, `/api/quality` and `discern quality` print this view.
public struct Quality: Codable, Sendable {
    public struct Row: Codable, Sendable {
        public let backend: String
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

    /// Every result of the period by backend and band, audited or not: what a threshold costs.
    public struct Written: Codable, Sendable {
        public let backend: String
        public let band: String
        public let results: Int
    }

    public struct Sample: Codable, Sendable {
        public let backend: String
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
        public let backend: String
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

    /// $1 batch name, $2 since (timestamp), $3 backend. Every part reads the audit sample's
    /// partial index or the band roll-ups, never every result.
    static let sql = """
        WITH chosen AS (SELECT id FROM discern.batches WHERE name = $1),
        audited AS (
            SELECT r.backend, count(*) AS audited FROM discern.results r
            WHERE r.audit AND ($1::text IS NULL OR r.batch_id = (SELECT id FROM chosen))
              AND r.created_at >= coalesce($2::timestamptz, '-infinity') AND ($3::text IS NULL OR r.backend = $3)
            GROUP BY 1
        ),
        reviewed AS (
            SELECT r.backend, count(*) AS reviewed, count(*) FILTER (WHERE c.verdict = 'cannot_tell') AS cannot_tell
            FROM (SELECT DISTINCT ON (x.result_id) x.result_id, x.verdict FROM discern.corrections x ORDER BY x.result_id, x.id DESC) c
            JOIN discern.results r ON r.id = c.result_id AND r.audit
            WHERE ($1::text IS NULL OR r.batch_id = (SELECT id FROM chosen))
              AND r.created_at >= coalesce($2::timestamptz, '-infinity') AND ($3::text IS NULL OR r.backend = $3)
            GROUP BY 1
        ),
        outcomes AS (
            SELECT o.backend, o.field, o.outcome,
                   discern.confidence_band(o.confidence) AS band
            FROM discern.audit_outcomes o
            WHERE ($1::text IS NULL OR o.batch_id = (SELECT id FROM chosen))
              AND o.created_at >= coalesce($2::timestamptz, '-infinity') AND ($3::text IS NULL OR o.backend = $3)
        ),
        counted AS (
            SELECT backend, field, CASE WHEN GROUPING(band) = 1 THEN 'all' ELSE discern.band_label(band) END AS band, count(*) AS n,
                   count(*) FILTER (WHERE outcome = 'right') AS right_count, count(*) FILTER (WHERE outcome = 'wrong') AS wrong,
                   count(*) FILTER (WHERE outcome = 'missing') AS missing, count(*) FILTER (WHERE outcome = 'invented') AS invented
            FROM outcomes GROUP BY GROUPING SETS ((backend, field, band), (backend, field))
        ),
        written AS (
            SELECT backend, band, sum(results) AS results FROM (
                SELECT backend, band, results FROM discern.result_bands_by_batch
                WHERE $1::text IS NOT NULL AND batch_id = (SELECT id FROM chosen)
                UNION ALL
                SELECT backend, band, results FROM discern.result_bands
                WHERE $1::text IS NULL AND day >= coalesce(($2::timestamptz AT TIME ZONE 'UTC')::date, '-infinity')) x
            WHERE $3::text IS NULL OR backend = $3
            GROUP BY 1, 2
        )
        SELECT json_build_object(
          'rows', (SELECT coalesce(json_agg(x ORDER BY x.backend, x.field, x.band), '[]') FROM (
                SELECT c.backend, c.field, c.band, c.n, c.right_count AS right, c.wrong, c.missing, c.invented,
                       c.right_count::float8 / c.n AS accuracy, w.low AS accuracy_low, w.high AS accuracy_high
                FROM counted c CROSS JOIN LATERAL discern.wilson(c.right_count, c.n) w) x),
          'written', (SELECT coalesce(json_agg(x ORDER BY x.backend, x.band), '[]') FROM (
                SELECT backend, discern.band_label(band) AS band, results FROM written) x),
          'samples', (SELECT coalesce(json_agg(x ORDER BY x.backend), '[]') FROM (
                SELECT a.backend, a.audited, coalesce(v.reviewed, 0) AS reviewed, coalesce(v.cannot_tell, 0) AS cannot_tell,
                       a.audited - coalesce(v.reviewed, 0) AS pending
                FROM audited a LEFT JOIN reviewed v USING (backend)) x),
          'days', CASE WHEN $1::text IS NOT NULL
                       THEN (SELECT greatest(1, (max(last_at) AT TIME ZONE 'UTC')::date - (min(first_at) AT TIME ZONE 'UTC')::date + 1)
                             FROM discern.results_per_batch WHERE batch_id = (SELECT id FROM chosen))
                       ELSE greatest(1, (now() AT TIME ZONE 'UTC')::date - coalesce(($2::timestamptz AT TIME ZONE 'UTC')::date,
                                     (SELECT min(day) FROM discern.result_bands), (now() AT TIME ZONE 'UTC')::date) + 1) END,
          'generated_at', now()
        ) AS doc
        """
}

/// What the quality view is asked for.
public struct QualityFilter: Sendable, Equatable {
    public var batch: String?
    /// Results written since this moment; nil: all.
    public var since: Date?
    public var backend: String?
    /// The field and target the recommendation is for.
    public var field = "license_plate"
    public var target = 0.02

    public init(batch: String? = nil, since: Date? = nil, backend: String? = nil, field: String = "license_plate", target: Double = 0.02) {
        (self.batch, self.since, self.backend, self.field, self.target) = (batch, since, backend, field, target)
    }

    var parameters: [(any PostgresEncodable)?] {
        [batch, since.map { ISO8601DateFormatter().string(from: $0) }, backend]
    }
}

extension Quality {
    /// The lowest band edge (0.0, 0.1, ... 1.0) such that reviewing every result below it leaves
    /// at most `target` of all results wrong, counting each band above it at its accuracy's
    /// lower bound. Reviewing is taken to fix what it finds.
    public func recommend(backend: String, field: String, target: Double) -> Recommendation {
        let bands = (0..<10).map { String(format: "%.1f", Double($0) / 10) }
        let written = Dictionary(uniqueKeysWithValues: self.written.filter { $0.backend == backend }.map { ($0.band, $0.results) })
        let low = Dictionary(uniqueKeysWithValues: rows.filter { $0.backend == backend && $0.field == field }.map { ($0.band, $0.accuracyLow) })
        let total = written.values.reduce(0, +)
        // Nothing reviewed, nothing measured: "review everything" would read as a finding.
        guard total > 0, !low.isEmpty else {
            return Recommendation(backend: backend, field: field, target: target, reviewBelow: nil, errorsAfterReviewAtMost: nil, reviewsPerDay: nil)
        }
        // Results without a confidence are never below a threshold: they count as they measured.
        let unbanded = Double(written["none"] ?? 0) * (1 - (low["none"] ?? 0))
        for edge in 0...10 {
            let kept = bands[edge...].reduce(unbanded) { $0 + Double(written[$1] ?? 0) * (1 - (low[$1] ?? 0)) }
            let share = kept / Double(total)
            if share <= target {
                let reviewed = bands[..<edge].reduce(0) { $0 + (written[$1] ?? 0) }
                return Recommendation(
                    backend: backend, field: field, target: target, reviewBelow: Double(edge) / 10,
                    errorsAfterReviewAtMost: share, reviewsPerDay: Double(reviewed) / days)
            }
        }
        return Recommendation(backend: backend, field: field, target: target, reviewBelow: nil, errorsAfterReviewAtMost: nil, reviewsPerDay: nil)
    }
}

extension QueueReader {
    public func quality(_ filter: QualityFilter) async throws -> Quality {
        var quality = try await document(Quality.self, Quality.sql, filter.parameters)
        let backend = filter.backend ?? quality.samples.max { $0.audited < $1.audited }?.backend ?? quality.written.first?.backend
        quality.recommendation = backend.map { quality.recommend(backend: $0, field: filter.field, target: filter.target) }
        return quality
    }
}
