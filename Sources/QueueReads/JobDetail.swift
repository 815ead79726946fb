import Foundation
import Postgres

/// Page 4: one job, or one result whose job was pruned: its file, every entity the service
/// returned, what preparation did, the raw answer (where the role may read it), attempts and
/// error history.
public struct JobDetail: Codable, Sendable {
    public struct Job: Codable, Sendable {
        public let id: Int
        public let state: String
        public let backend: String
        public let action: String
        public let batch: String?
        public let imagePath: String
        public let priority: Int
        public let attempts: Int
        public let maxAttempts: Int
        public let errorKind: String?
        public let lastError: String?
        public let errorHistory: [Attempt]
        public let createdAt: String
        public let runAt: String
        public let updatedAt: String
        public let finishedAt: String?
        public let leaseOwner: String?
        public let leaseExpiresAt: String?
        /// The trace its enqueue started (`jobs.traceparent`, docs/tracing.md), to look it up in
        /// a tracing UI; nil when nobody traced it.
        public let traceId: String?
    }
    public struct Attempt: Codable, Sendable {
        public let attempt: Int?
        public let at: String?
        public let kind: String?
        public let error: String?
    }
    public struct Result: Codable, Sendable {
        public let id: Int
        public let imagePath: String
        public let backend: String
        public let outcome: String?
        public let subjectId: String?
        public let category: String?
        public let subcategory: String?
        public let operator_: String?
        public let fleetId: String?
        public let licensePlate: String?
        public let confidence: Double?
        public let description: String?
        public let originalBytes: Int
        public let originalWidth: Int
        public let originalHeight: Int
        public let originalFormat: String
        public let sentBytes: Int
        public let sentWidth: Int
        public let sentHeight: Int
        public let sentFormat: String
        public let jpegQuality: Int?
        public let encodeCount: Int
        public let passedThrough: Bool
        public let prepareMs: Double
        public let analyzeMs: Double
        public let createdAt: String
        public let rawResponse: JSONValue?
        public let review: Review?

        enum CodingKeys: String, CodingKey {
            case id, imagePath, backend, outcome, subjectId, category, subcategory, operator_ = "operator", fleetId, licensePlate, confidence,
                description
            case originalBytes, originalWidth, originalHeight, originalFormat, sentBytes, sentWidth, sentHeight, sentFormat
            case jpegQuality, encodeCount, passedThrough, prepareMs, analyzeMs, createdAt, rawResponse, review
        }
    }
    public struct Entity: Codable, Sendable {
        public let position: Int
        public let isPrimary: Bool
        public let type: String
        public let operator_: String?
        public let fleetId: String?
        public let licensePlate: String?
        public let containerId: String?
        public let tailId: String?
        public let identifiers: [String]
        public let confidence: Double?

        enum CodingKeys: String, CodingKey {
            case position, isPrimary, type, operator_ = "operator", fleetId, licensePlate, containerId, tailId, identifiers, confidence
        }
    }
    public struct Review: Codable, Sendable {
        public let confirmed: Bool
        public let operator_: String?
        public let fleetId: String?
        public let licensePlate: String?
        public let correctedBy: String
        public let correctedAt: String

        enum CodingKeys: String, CodingKey {
            case confirmed, operator_ = "operator", fleetId, licensePlate, correctedBy, correctedAt
        }
    }

    public let job: Job?
    public let result: Result?
    public let entities: [Entity]
    /// Who retried, cancelled or reviewed it (or acted on its whole batch), newest first.
    public let actions: [OperatorAction]
    /// False when this role may not read raw answers (discern_reader), or they were not asked for.
    public let rawAnswerVisible: Bool

    static func sql(raw: Bool) -> String {
        """
        WITH j AS (
            SELECT j.id, j.state, j.backend, j.action, b.name AS batch, j.batch_id, j.image_path, j.priority, j.attempts, j.max_attempts, j.error_kind,
                   j.last_error, j.error_history, j.created_at, j.run_at, j.updated_at, j.finished_at, j.lease_owner, j.lease_expires_at,
                   nullif(split_part(j.traceparent, '-', 2), '') AS trace_id
            FROM discern.jobs j LEFT JOIN discern.batches b ON b.id = j.batch_id
            WHERE j.id = coalesce($1, (SELECT job_id FROM discern.results WHERE id = $2))),
        r AS (
            SELECT r.id, r.image_path, r.backend, r.outcome, r.subject_id, r.category, r.subcategory, r.operator, r.fleet_id, r.license_plate,
                   r.confidence, r.description, r.original_bytes, r.original_width, r.original_height, r.original_format,
                   r.sent_bytes, r.sent_width, r.sent_height, r.sent_format, r.jpeg_quality, r.encode_count, r.passed_through,
                   r.prepare_ms, r.analyze_ms, r.created_at, \(raw ? "r.raw_response" : "NULL::jsonb") AS raw_response,
                   (SELECT to_json(c) FROM (
                       SELECT confirmed, operator, fleet_id, license_plate, corrected_by, corrected_at FROM discern.corrections
                       WHERE result_id = r.id ORDER BY id DESC LIMIT 1) c) AS review
            FROM discern.results r
            WHERE r.id = coalesce($2, (SELECT id FROM discern.results WHERE job_id = $1)))
        SELECT CASE WHEN EXISTS (SELECT 1 FROM j) OR EXISTS (SELECT 1 FROM r) THEN json_build_object(
            'job', (SELECT to_json(j) FROM j),
            'result', (SELECT to_json(r) FROM r),
            'entities', (SELECT coalesce(json_agg(e ORDER BY e.position), '[]') FROM (
                SELECT position, is_primary, type, operator, fleet_id, license_plate, container_id, tail_id, identifiers, confidence
                FROM discern.entities WHERE result_id = (SELECT id FROM r)) e),
            'actions', (SELECT coalesce(json_agg(a ORDER BY a.at DESC, a.id DESC), '[]') FROM (
                SELECT o.id, o.at, o.actor, o.action, o.scope, o.jobs FROM discern.operator_actions o
                WHERE o.job_ids @> ARRAY[(SELECT id FROM j)]
                   OR (o.job_ids IS NULL AND o.batch_id = (SELECT batch_id FROM j))
                ORDER BY o.at DESC, o.id DESC LIMIT 50) a),
            'raw_answer_visible', \(raw)) END AS doc
        """
    }
}

extension QueueReader {
    /// By job id, or by result id (a result outlives its pruned job).
    /// `rawAnswers` false: without the raw answer even where this role may read it (a console viewer).
    public func detail(jobID: Int? = nil, resultID: Int? = nil, rawAnswers: Bool = true) async throws -> JobDetail {
        try await document(JobDetail.self, JobDetail.sql(raw: canReadRawAnswers && rawAnswers), [jobID, resultID])
    }
}
