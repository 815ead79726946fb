import AnalysisModel
import Foundation
import Postgres
import SQLSchema

/// The jobs' results as `Queries.Jobs.Complete` takes them: one binary array per column of
/// `discern.results`, then one per column of `discern.entities` (an entity a row, tied to its
/// result by job id). The statement names each column and its type; this fills each by name, so
/// a column added, dropped or retyped there breaks the build here.
enum CompletionBatch {
    typealias Entry = (jobID: Int, result: JobResult)

    static func statement(worker: String, _ entries: [Entry]) -> Queries.Jobs.Complete {
        let analyses = entries.map(\.result.analysis), preparations = entries.map(\.result.preparation)
        let entities = entries.flatMap { entry in
            entry.result.analysis.entities.prefix(Int(Int16.max)).enumerated().map { (jobID: entry.jobID, position: $0.offset, entity: $0.element) }
        }
        return Queries.Jobs.Complete(
            worker: worker,
            jobId: BinaryArray(entries.map(\.jobID)),
            category: text(analyses.map(\.category)),
            subcategory: text(analyses.map(\.subcategory)),
            operatorName: text(analyses.map(\.serviceOperator)),
            fleetId: text(analyses.map(\.fleetID)),
            licensePlate: text(analyses.map(\.licensePlate)),
            confidence: finite(analyses.map(\.confidence)),
            textIdentifiers: textLists(analyses.map(\.textIdentifiers)),
            description: text(analyses.map(\.description)),
            outcome: text(analyses.map(\.outcome)),
            subjectId: text(analyses.map(\.subjectID)),
            details: object(analyses.map(\.detailsJSON)),
            apiCalls: smallint(analyses.map(\.apiCalls)),
            rawResponse: json(analyses.map(\.rawResponseJSON)),
            originalBytes: BinaryArray(preparations.map(\.originalBytes)),
            originalWidth: integer(preparations.map(\.originalWidth)),
            originalHeight: integer(preparations.map(\.originalHeight)),
            originalFormat: text(preparations.map(\.originalFormat)),
            sentBytes: BinaryArray(preparations.map(\.sentBytes)),
            sentWidth: integer(preparations.map(\.sentWidth)),
            sentHeight: integer(preparations.map(\.sentHeight)),
            sentFormat: text(preparations.map(\.sentFormat)),
            jpegQuality: smallint(preparations.map(\.jpegQuality)),
            encodeCount: smallint(preparations.map(\.encodeCount)),
            passedThrough: BinaryArray(preparations.map(\.passedThrough)),
            prepareMs: finite(preparations.map(\.milliseconds)),
            analyzeMs: finite(entries.map(\.result.analyzeMilliseconds)),
            serviceHost: text(analyses.map(\.provenance.serviceHost)),
            model: text(analyses.map(\.provenance.model)),
            modelVersion: text(analyses.map(\.provenance.modelVersion)),
            discernVersion: text(entries.map(\.result.release)),
            byteBudget: BinaryArray(preparations.map(\.byteBudget)),
            provenance: json(entries.map(\.result.provenanceJSON)),
            entityJobId: BinaryArray(entities.map(\.jobID)),
            entityPosition: smallint(entities.map(\.position)),
            entityIsPrimary: BinaryArray(entities.map(\.entity.isPrimary)),
            entityType: text(entities.map(\.entity.type)),
            entityCategory: text(entities.map(\.entity.category)),
            entitySubtype: text(entities.map(\.entity.subtype)),
            entityOperator: text(entities.map(\.entity.serviceOperator)),
            entityFleetId: text(entities.map(\.entity.fleetID)),
            entityLicensePlate: text(entities.map(\.entity.licensePlate)),
            entityLicensePlateJurisdiction: text(entities.map(\.entity.licensePlateJurisdiction)),
            entityContainerId: text(entities.map(\.entity.containerID)),
            entityTailId: text(entities.map(\.entity.tailID)),
            entityOtherIds: textLists(entities.map(\.entity.otherIDs)),
            entityIdentifiers: textLists(entities.map(\.entity.identifiers)),
            entityConfidence: finite(entities.map(\.entity.confidence)),
            entityProperties: object(entities.map(\.entity.propertiesJSON)))
    }

    /// Text without NUL, which a text value cannot hold (`StoredText`).
    static func text(_ values: [String?]) -> BinaryArray<String> { BinaryArray(values.map { $0.map(StoredText.clean) }) }

    /// A text[] per row, as its literal: rows' lists differ in length, which a two-dimensional
    /// array cannot hold; the statement casts each back.
    static func textLists(_ values: [[String]]) -> BinaryArray<String> { BinaryArray(values.map { $0.map(StoredText.clean).postgresText }) }

    /// JSON as jsonb accepts it (`StoredJSON`).
    static func json(_ values: [String]) -> BinaryArray<JSONText> { BinaryArray(values.map { JSONText(StoredJSON.storable($0)) }) }

    /// A JSON object, or `{}` for anything else (details and properties are objects by contract).
    static func object(_ values: [String]) -> BinaryArray<JSONText> { json(values.map { $0.first == "{" ? $0 : "{}" }) }

    static func integer(_ values: [Int]) -> BinaryArray<Int32> { BinaryArray(values.map { Int32(clamping: $0) }) }

    static func smallint(_ values: [Int?]) -> BinaryArray<Int16> { BinaryArray(values.map { $0.map { Int16(clamping: $0) } }) }

    /// NaN and infinity are stored as NULL: no dashboard can use them.
    static func finite(_ values: [Double?]) -> BinaryArray<Double> { BinaryArray(values.map { $0.flatMap { $0.isFinite ? $0 : nil } }) }
}
