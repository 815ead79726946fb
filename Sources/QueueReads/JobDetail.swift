import Foundation
import Postgres
import SQLSchema

/// Page 4: one job, or one result whose job was pruned: its file, every entity the service
/// returned, what preparation did, the raw answer (where the role may read it), attempts and
/// error history.
public struct JobDetail: Codable, Sendable {
    public struct Job: Codable, Sendable {
        public let id: Int
        public let state: String
        public let service: String
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
        public let service: String
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
        /// Where the answer came from (docs/services.md, "Provenance"); nil on results older
        /// than migration 38.
        public let serviceHost: String?
        public let model: String?
        public let modelVersion: String?
        public let discernVersion: String?
        public let byteBudget: Int?

        enum CodingKeys: String, CodingKey {
            case id, imagePath, service, outcome, subjectId, category, subcategory, operator_ = "operator", fleetId, licensePlate, confidence,
                description
            case originalBytes, originalWidth, originalHeight, originalFormat, sentBytes, sentWidth, sentHeight, sentFormat
            case jpegQuality, encodeCount, passedThrough, prepareMs, analyzeMs, createdAt, rawResponse, review
            case serviceHost, model, modelVersion, discernVersion, byteBudget
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
}

extension QueueReader {
    /// By job id, or by result id (a result outlives its pruned job).
    /// `rawAnswers` false: without the raw answer even where this role may read it (a console viewer).
    public func detail(jobID: Int? = nil, resultID: Int? = nil, rawAnswers: Bool = true) async throws -> JobDetail {
        // A role that may not read the raw answers' column (`discern_reader`) must not name it at
        // all: the two statements differ in that column alone.
        canReadRawAnswers && rawAnswers
            ? try await document(JobDetail.self, Queries.JobDetail.DocumentWithRawAnswer(job: jobID, result: resultID))
            : try await document(JobDetail.self, Queries.JobDetail.Document(job: jobID, result: resultID))
    }
}
