import AnalysisModel
import Foundation
import Postgres
import SQLSchema

/// The columns of `discern.results` a completion writes, and of `discern.entities` beside them,
/// declared once: `completion` fills them into `Queries.Jobs.complete`.
enum ResultColumns {
    typealias Entry = (jobID: Int, result: JobResult)
    typealias Column = BatchColumn<Entry>

    /// In parameter order: `$2` is the first.
    static let all: [Column] = [
        .bigint("job_id") { $0.jobID },
        .text("category") { $0.result.analysis.category },
        .text("subcategory") { $0.result.analysis.subcategory },
        .text("operator") { $0.result.analysis.serviceOperator },
        .text("fleet_id") { $0.result.analysis.fleetID },
        .text("license_plate") { $0.result.analysis.licensePlate },
        .double("confidence") { $0.result.analysis.confidence },
        .textArray("text_identifiers") { $0.result.analysis.textIdentifiers },
        .text("description") { $0.result.analysis.description },
        .text("outcome") { $0.result.analysis.outcome },
        .text("subject_id") { $0.result.analysis.subjectID },
        .json("details") { $0.result.analysis.detailsJSON.first == "{" ? $0.result.analysis.detailsJSON : "{}" },
        .smallint("api_calls") { $0.result.analysis.apiCalls },
        .json("raw_response") { $0.result.analysis.rawResponseJSON },
        .bigint("original_bytes") { $0.result.preparation.originalBytes },
        .integer("original_width") { $0.result.preparation.originalWidth },
        .integer("original_height") { $0.result.preparation.originalHeight },
        .text("original_format") { $0.result.preparation.originalFormat },
        .bigint("sent_bytes") { $0.result.preparation.sentBytes },
        .integer("sent_width") { $0.result.preparation.sentWidth },
        .integer("sent_height") { $0.result.preparation.sentHeight },
        .text("sent_format") { $0.result.preparation.sentFormat },
        .smallint("jpeg_quality") { $0.result.preparation.jpegQuality },
        .smallint("encode_count") { $0.result.preparation.encodeCount },
        .boolean("passed_through") { $0.result.preparation.passedThrough },
        .double("prepare_ms") { $0.result.preparation.milliseconds },
        .double("analyze_ms") { $0.result.analyzeMilliseconds },
        .text("service_host") { $0.result.analysis.provenance.serviceHost },
        .text("model") { $0.result.analysis.provenance.model },
        .text("model_version") { $0.result.analysis.provenance.modelVersion },
        .text("discern_version") { $0.result.release },
        .optionalBigint("byte_budget") { $0.result.preparation.byteBudget },
        .json("provenance") { $0.result.provenanceJSON }
    ]

    static let names = all.map(\.name)

    /// `Queries.Jobs.complete` with these columns and `EntityColumns`, in parameter order.
    static let completion = Queries.fill(
        Queries.Jobs.complete,
        [
            "result_rows": all.unnest(firstParameter: 2, alias: "r"),
            "result_columns": all.storedNames(),
            "result_values": all.storedValues(from: "i"),
            "entity_rows": EntityColumns.all.unnest(firstParameter: 2 + all.count, alias: "e"),
            "entity_columns": EntityColumns.all.storedNames(),
            "entity_values": EntityColumns.all.storedValues(from: "e")
        ])
}

/// The entities of a batch of results, one row per entity, tied to their result by job id.
enum EntityColumns {
    typealias Entry = (jobID: Int, position: Int, entity: Entity)
    typealias Column = BatchColumn<Entry>

    static let all: [Column] = [
        .bigint("job_id") { $0.jobID },
        .smallint("position") { $0.position },
        .boolean("is_primary") { $0.entity.isPrimary },
        .text("type") { $0.entity.type },
        .text("category") { $0.entity.category },
        .text("subtype") { $0.entity.subtype },
        .text("operator") { $0.entity.serviceOperator },
        .text("fleet_id") { $0.entity.fleetID },
        .text("license_plate") { $0.entity.licensePlate },
        .text("license_plate_jurisdiction") { $0.entity.licensePlateJurisdiction },
        .text("container_id") { $0.entity.containerID },
        .text("tail_id") { $0.entity.tailID },
        .textArray("other_ids") { $0.entity.otherIDs },
        .textArray("identifiers") { $0.entity.identifiers },
        .double("confidence") { $0.entity.confidence },
        .json("properties") { $0.entity.propertiesJSON.first == "{" ? $0.entity.propertiesJSON : "{}" }
    ]

    static let names = all.map(\.name)

    static func rows(_ results: [ResultColumns.Entry]) -> [Entry] {
        results.flatMap { entry in
            entry.result.analysis.entities.prefix(Int(Int16.max)).enumerated().map { (entry.jobID, $0.offset, $0.element) }
        }
    }
}
