import AnalysisModel
import Foundation

/// Image Discerner's entities, typed (docs/services.md, "Image Discerner"; the service's `docs/api-reference.md`
/// and `src/lambdas/inference_engine.py`).
///
/// Format 3.0: `type` is `category:subtype` or a bare category (`cargo_container`);
/// `identifiers` are plain strings `prefix:value` — `fleet:ID`,
/// `license_plate:JURISDICTION:NUMBER`, `container_id:ID`, `tail_id:ID`, `other_id:ID`.
/// Format 2.0's `primary_subject` becomes one entity of the same shape.
///
/// The primary entity, whose fields fill the result row, is the most confident entity of a
/// known category (not `unknown`); on a tie, the one the service listed first. When every
/// entity is unknown, the first one is.
enum DiscernerEntities {
    static func formatThree(_ items: [UntrustedJSON]) -> [Entity] {
        let entities = items.prefix(100).map { (item: UntrustedJSON) -> Entity in
            let type = item.string("type", maxLength: 128) ?? "unknown"
            let (category, subtype) = split(type)
            let properties: [String: Any?] = (item.object("properties")?.fields ?? [:]).mapValues { Optional($0) }
            var entity = Entity(
                type: type, category: category, subtype: subtype, serviceOperator: item.string("operator"),
                confidence: item.fraction("confidence"), propertiesJSON: JSONBody.details(properties))
            read(item.strings("identifiers", maxLength: 256), into: &entity)
            return entity
        }
        return markingPrimary(entities)
    }

    static func formatTwo(_ subject: UntrustedJSON) -> Entity {
        let category = subject.string("category", maxLength: 128) ?? "unknown"
        let subtype = subject.string("subcategory", maxLength: 128)
        let details = subject.object("additional_details")
        var identifiers: [String] = []
        if let fleet = subject.string("fleet_id", maxLength: 256) { identifiers.append("fleet:\(fleet)") }
        // 2.0 names no jurisdiction.
        if let plate = details?.string("license_plate", maxLength: 256) { identifiers.append("license_plate:unknown:\(plate)") }
        var entity = Entity(
            type: subtype.map { "\(category):\($0)" } ?? category, category: category, subtype: subtype,
            serviceOperator: subject.string("operator"), confidence: subject.fraction("confidence"),
            propertiesJSON: JSONBody.details([
                "description": details?.string("description", maxLength: 4096),
                "text_identifiers": details?.strings("text_identifiers")
            ]),
            isPrimary: true)
        read(identifiers, into: &entity)
        return entity
    }

    /// `commercial_vehicle:van` → ("commercial_vehicle", "van"); `cargo_container` → (it, nil).
    static func split(_ type: String) -> (category: String, subtype: String?) {
        let parts = type.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let category = parts[0].isEmpty ? "unknown" : parts[0]
        return (category, parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil)
    }

    /// Files each `prefix:value` identifier under its kind; the first of each kind fills the
    /// typed field, and all are kept as written. Unknown prefixes count as other ids.
    static func read(_ identifiers: [String], into entity: inout Entity) {
        entity.identifiers = identifiers
        for identifier in identifiers {
            let parts = identifier.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else {
                entity.otherIDs.append(identifier)
                continue
            }
            let value = parts[1]
            switch parts[0] {
            case "fleet", "fleet_id":
                if entity.fleetID == nil { entity.fleetID = value }
            case "license_plate":
                // JURISDICTION:NUMBER; a plate without a jurisdiction is taken as the number.
                let plate = value.split(separator: ":", maxSplits: 1).map(String.init)
                if entity.licensePlate == nil {
                    entity.licensePlate = plate.count == 2 ? plate[1] : value
                    entity.licensePlateJurisdiction = plate.count == 2 ? plate[0] : nil
                }
            case "container_id":
                if entity.containerID == nil { entity.containerID = value }
            case "tail_id":
                if entity.tailID == nil { entity.tailID = value }
            case "other_id":
                entity.otherIDs.append(value)
            default:
                entity.otherIDs.append(identifier)
            }
        }
    }

    private static func markingPrimary(_ entities: [Entity]) -> [Entity] {
        var entities = entities
        let known = entities.indices.filter { entities[$0].category != "unknown" }
        let candidates = known.isEmpty ? Array(entities.indices.prefix(1)) : known
        // max(by:) keeps the last of equals; the first listed wins a tie, so compare reversed.
        if let primary = candidates.reversed().max(by: { (entities[$0].confidence ?? 0) < (entities[$1].confidence ?? 0) }) {
            entities[primary].isPrimary = true
        }
        return entities
    }
}
