import AnalysisModel
import Foundation
import Postgres
import SQLSchema

/// Trials before a cutover: a candidate asked about a reproducible sample of a batch's photos,
/// its answers kept in discern.trial_results, apart from the queue and from every production
/// view (docs/operations.md, "Trying a candidate before a cutover"). This is their storage; the
/// worker's `TrialRunner` asks the candidate, QueueReads' `TrialReport` compares.
public enum Trials {
    /// What a trial tries on what: recorded once, and read back when it runs again.
    public struct Definition: Sendable, Equatable {
        public var name: String
        /// The candidate's service and action.
        public var service: String
        public var action: String
        /// The service and action whose answers it is compared with.
        public var productionService: String
        public var productionAction: String
        public var batch: String
        /// The sample: a number of photos, or a share of the batch's (one of the two).
        public var sampleCount: Int?
        public var share: Double?
        public var seed: Int64
        /// The settings the candidate runs with, as recorded: no credential.
        public var candidate: [String: String]

        public init(
            name: String, service: String, action: String, productionService: String, productionAction: String, batch: String,
            sampleCount: Int?, share: Double?, seed: Int64, candidate: [String: String]
        ) {
            (self.name, self.service, self.action, self.productionService, self.productionAction) =
                (name, service, action, productionService, productionAction)
            (self.batch, self.sampleCount, self.share, self.seed, self.candidate) = (batch, sampleCount, share, seed, candidate)
        }

        /// A seed from the name: the same name samples the same photos.
        public static func seed(of name: String) -> Int64 {
            name.utf8.reduce(Int64(1_469_598_103_934_665_603 & Int64.max)) { ($0 ^ Int64($1)) &* 1_099_511_628_211 } & 0x7FFF_FFFF_FFFF
        }
    }

    /// A trial as stored: its id and definition.
    public struct Trial: Sendable, Equatable {
        public let id: Int
        public let definition: Definition
    }

    /// A photo of the sample the candidate has not answered yet.
    public struct Photo: Sendable, Equatable {
        public let imagePath: String
        public let productionResultID: Int
        public let paramsJSON: String
    }

    /// The candidate's answer for a photo, or why it had none.
    public enum Answer: Sendable {
        case answered(JobResult)
        case failed(kind: String, message: String)
    }

    /// The trial named in `definition`: created, or, when the name exists, the one there, which
    /// must be the same trial (the candidate's settings may differ: a URL rotated between runs).
    public static func open(_ definition: Definition, on connection: Connection) throws -> Trial {
        let candidate = String(decoding: try JSONSerialization.data(withJSONObject: definition.candidate, options: [.sortedKeys]), as: UTF8.self)
        try connection.run(
            Queries.Trials.Create(
                name: definition.name, service: definition.service, action: definition.action, productionService: definition.productionService,
                productionAction: definition.productionAction, batch: definition.batch, sampleCount: definition.sampleCount,
                share: definition.share, seed: Int(definition.seed), candidate: candidate))
        guard let trial = try find(definition.name, on: connection) else {
            throw QueueError(.invalidSelection, "there is no batch named '\(definition.batch)' to try '\(definition.name)' on")
        }
        var stored = trial.definition
        stored.candidate = definition.candidate
        guard stored == definition else {
            throw QueueError(
                .invalidSelection,
                "a trial named '\(definition.name)' exists with another service, batch or sample (\(describe(trial.definition))): "
                    + "run it with the same ones, or choose another name")
        }
        return trial
    }

    public static func find(_ name: String, on connection: Connection) throws -> Trial? {
        guard let row = try connection.run(Queries.Trials.Find(name: name)).first else { return nil }
        let candidate = try JSONSerialization.jsonObject(with: Data(row.candidate.utf8)) as? [String: String] ?? [:]
        return Trial(
            id: row.id,
            definition: Definition(
                name: row.name, service: row.service, action: row.action, productionService: row.productionService,
                productionAction: row.productionAction, batch: row.batch, sampleCount: row.sampleCount, share: row.share,
                seed: Int64(row.seed), candidate: candidate))
    }

    /// The sample's photos without an answer yet (one that failed is asked again).
    public static func pending(_ trial: Trial, on connection: Connection) throws -> [Photo] {
        try connection.run(Queries.Trials.Pending(trial: trial.id)).map {
            Photo(imagePath: $0.imagePath, productionResultID: $0.productionResultId, paramsJSON: $0.params)
        }
    }

    public static func store(_ answer: Answer, for photo: Photo, of trial: Trial, on connection: Connection) throws {
        switch answer {
        case .answered(let result):
            let analysis = result.analysis
            try connection.run(
                Queries.Trials.Store(
                    trial: trial.id, imagePath: photo.imagePath, productionResult: photo.productionResultID, category: analysis.category,
                    subcategory: analysis.subcategory, serviceOperator: analysis.serviceOperator, fleetId: analysis.fleetID,
                    licensePlate: analysis.licensePlate, confidence: analysis.confidence, outcome: analysis.outcome, subjectId: analysis.subjectID,
                    apiCalls: analysis.apiCalls, prepareMilliseconds: result.preparation.milliseconds,
                    analyzeMilliseconds: result.analyzeMilliseconds, sentBytes: result.preparation.sentBytes,
                    serviceHost: analysis.provenance.serviceHost, model: analysis.provenance.model, modelVersion: analysis.provenance.modelVersion,
                    rawResponse: analysis.rawResponseJSON, errorKind: nil, error: nil))
        case .failed(let kind, let message):
            try connection.run(
                Queries.Trials.Store(
                    trial: trial.id, imagePath: photo.imagePath, productionResult: photo.productionResultID, category: nil, subcategory: nil,
                    serviceOperator: nil, fleetId: nil, licensePlate: nil, confidence: nil, outcome: nil, subjectId: nil, apiCalls: 0,
                    prepareMilliseconds: nil, analyzeMilliseconds: nil, sentBytes: nil, serviceHost: nil, model: nil, modelVersion: nil,
                    rawResponse: nil, errorKind: kind, error: String(message.prefix(2000))))
        }
    }

    static func describe(_ definition: Definition) -> String {
        let sample = definition.sampleCount.map { "\($0) photos" } ?? definition.share.map { "\($0 * 100) %" } ?? "?"
        return "\(definition.service) \(definition.action) against \(definition.productionService) \(definition.productionAction), "
            + "batch \(definition.batch), \(sample), seed \(definition.seed)"
    }
}
