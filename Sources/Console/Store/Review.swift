import Foundation
import Postgres

/// Page 6: the least confident results nobody has reviewed yet, first.
public struct ReviewQueue: Codable, Sendable {
    public let threshold: Double
    public let items: [ResultPage.Card]
    public let reviewedToday: Int

    static let sql = """
        SELECT json_build_object(
          'threshold', $1::float8,
          'items', (SELECT coalesce(json_agg(x ORDER BY x.confidence, x.id), '[]') FROM (
                SELECT r.id, r.job_id, b.name AS batch, r.image_path, r.backend, r.outcome, r.category, r.operator, r.fleet_id,
                       r.license_plate, r.confidence, r.created_at
                FROM discern.results r LEFT JOIN discern.batches b ON b.id = r.batch_id
                WHERE r.confidence IS NOT NULL AND r.confidence < $1
                  AND NOT EXISTS (SELECT 1 FROM discern.corrections c WHERE c.result_id = r.id)
                ORDER BY r.confidence, r.id LIMIT $2) x),
          'reviewed_today', (SELECT count(*) FROM discern.corrections WHERE corrected_at > date_trunc('day', now()))
        ) AS doc
        """
}

/// A person's verdict on one result.
public struct Correction: Sendable, Equatable {
    public var resultID: Int
    public var confirmed: Bool
    public var operatorName: String?
    public var fleetID: String?
    public var licensePlate: String?
    public var by: String

    public init(resultID: Int, confirmed: Bool, operatorName: String? = nil, fleetID: String? = nil, licensePlate: String? = nil, by: String) {
        self.resultID = resultID
        self.confirmed = confirmed
        self.operatorName = operatorName
        self.fleetID = fleetID
        self.licensePlate = licensePlate
        self.by = by
    }
}

extension ConsoleStore {
    public func reviewQueue(threshold: Double, limit: Int = 24) async throws -> ReviewQueue {
        try await document(ReviewQueue.self, ReviewQueue.sql, [threshold, limit])
    }

    /// Records the verdict; false when the result does not exist.
    public func record(_ correction: Correction) async throws -> Bool {
        try await change { connection in
            try connection.query("""
                INSERT INTO discern.corrections (result_id, confirmed, operator, fleet_id, license_plate, corrected_by)
                SELECT id, $2, $3, $4, $5, $6 FROM discern.results WHERE id = $1
                """, [correction.resultID, correction.confirmed, correction.operatorName, correction.fleetID,
                      correction.licensePlate, correction.by]).affected == 1
        }
    }
}
