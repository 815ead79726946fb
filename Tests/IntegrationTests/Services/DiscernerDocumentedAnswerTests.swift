import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

@testable import ServiceClients

/// The service's documented answers, verbatim, read and stored: what a dashboard finds in
/// `discern.results` and `discern.entities` for each.
@Suite("Image Discerner: documented answers to stored columns", .integrationTimeLimit)
struct DiscernerDocumentedAnswerTests {
    struct Example: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        /// type, operator, fleet, plate, jurisdiction, container, confidence, primary — per entity.
        var entities: [EntityRow]
        var testDescription: String { name }
    }

    struct EntityRow: Sendable, Equatable {
        var type: String, category: String, subtype: String?, serviceOperator: String?, fleet: String?, plate: String?
        var jurisdiction: String?, container: String?, confidence: Double, primary: Bool, properties: String = "{}"
    }

    static let examples = [
        Example(
            name: "response format 3.0", body: DiscernerDocumentedAnswers.responseFormatVersion3,
            entities: [
                EntityRow(
                    type: "commercial_vehicle:van", category: "commercial_vehicle", subtype: "van", serviceOperator: "USPS",
                    fleet: "8424021", plate: "ABC123", jurisdiction: "unknown", container: nil, confidence: 0.85, primary: true)
            ]),
        Example(
            name: "UPS delivery truck", body: DiscernerDocumentedAnswers.upsDeliveryTruck,
            entities: [
                EntityRow(
                    type: "commercial_vehicle:van", category: "commercial_vehicle", subtype: "van", serviceOperator: "UPS",
                    fleet: "1Z2345", plate: "BRN123", jurisdiction: "unknown", container: nil, confidence: 0.91, primary: true)
            ]),
        Example(
            name: "USPS mail truck", body: DiscernerDocumentedAnswers.uspsMailTruck,
            entities: [
                EntityRow(
                    type: "commercial_vehicle:van", category: "commercial_vehicle", subtype: "van", serviceOperator: "USPS",
                    fleet: "8424021", plate: nil, jurisdiction: nil, container: nil, confidence: 0.87, primary: true)
            ]),
        Example(
            name: "shipping container", body: DiscernerDocumentedAnswers.shippingContainer,
            entities: [
                EntityRow(
                    type: "cargo_container", category: "cargo_container", subtype: nil, serviceOperator: "Maersk",
                    fleet: nil, plate: nil, jurisdiction: nil, container: "MSKU1234567", confidence: 0.94, primary: true,
                    properties: #"{"size_code": "45G1"}"#)
            ]),
        Example(
            name: "multiple entities", body: DiscernerDocumentedAnswers.multipleEntities,
            entities: [
                EntityRow(
                    type: "commercial_vehicle:tractor_trailer", category: "commercial_vehicle", subtype: "tractor_trailer",
                    serviceOperator: "FedEx", fleet: "FX1234", plate: "ABC123", jurisdiction: "california", container: nil,
                    confidence: 0.89, primary: false),
                EntityRow(
                    type: "cargo_container", category: "cargo_container", subtype: nil, serviceOperator: "MSC",
                    fleet: nil, plate: nil, jurisdiction: nil, container: "MSCU7654321", confidence: 0.92, primary: true,
                    properties: #"{"size_code": "20G1"}"#)
            ])
    ]

    @Test(
        "each documented answer becomes one result row (the primary entity's fields) and one entity row per entity",
        arguments: examples)
    func storedExactly(example: Example) async throws {
        let analysis = try DiscernerResponse.map(DiscernerDocumentedAnswers.envelope(example.body))
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/photos/documented.jpg"])
                let job = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                let stored = try JobQueue.complete(
                    connection, job: job, workerID: "w",
                    result: JobResult(
                        analysis: analysis,
                        preparation: .init(
                            originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1,
                            sentWidth: 1, sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0,
                            passedThrough: true, milliseconds: 1),
                        analyzeMilliseconds: 1))
                #expect(stored)
            }
            let entities = try await database.rows(
                """
                SELECT type, category, subtype, operator, fleet_id, license_plate, license_plate_jurisdiction, container_id,
                       confidence, is_primary, properties::text AS properties
                FROM discern.entity_sightings ORDER BY position
                """,
                as: String.self, String.self, String?.self, String?.self, String?.self, String?.self, String?.self, String?.self,
                Double?.self, Bool.self, String.self
            ).map { type, category, subtype, serviceOperator, fleet, plate, jurisdiction, container, confidence, primary, properties in
                EntityRow(
                    type: type, category: category, subtype: subtype, serviceOperator: serviceOperator, fleet: fleet, plate: plate,
                    jurisdiction: jurisdiction, container: container, confidence: confidence ?? -1, primary: primary, properties: properties)
            }
            #expect(entities == example.entities)
            let result = try #require(
                try await database.rows(
                    "SELECT category, subcategory, operator, fleet_id, license_plate, confidence, outcome FROM discern.results",
                    as: String?.self, String?.self, String?.self, String?.self, String?.self, Double?.self, String?.self
                ).first)
            let (category, subcategory, serviceOperator, fleet, plate, confidence, outcome) = result
            let primary = try #require(example.entities.first { $0.primary })
            #expect(category == primary.category && subcategory == primary.subtype)
            #expect(serviceOperator == primary.serviceOperator && fleet == primary.fleet)
            #expect(plate == primary.plate && confidence == primary.confidence)
            #expect(outcome == "identified")
        }
    }
}
