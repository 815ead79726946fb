import Foundation

/// What a result row and its entity rows must hold for an Image Discerner 3.0 answer, read
/// here on its own from docs/services.md, "Image Discerner" and docs/services.md, not with discern's parser: the
/// test that uses it checks the stored rows against the service's words, not against the code
/// that stored them.
struct ReferenceReading {
    struct Entity: Equatable {
        var type: String
        var category: String
        var subtype: String?
        var serviceOperator: String?
        var fleetID: String?
        var licensePlate: String?
        var jurisdiction: String?
        var containerID: String?
        var tailID: String?
        var otherIDs: [String] = []
        var identifiers: [String]
        var confidence: Double?
        var properties: NSDictionary
        var isPrimary = false
    }

    let answer: [String: Any]
    let entities: [Entity]
    let primary: Int?

    init?(answer data: Data) {
        guard let answer = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let result = answer["analysis_result"] as? [String: Any], let body = result["body"] as? [String: Any],
            let list = body["entities"] as? [[String: Any]]
        else { return nil }
        self.answer = answer
        var entities = list.map(Self.entity)
        // The primary entity: the most confident of a known category, the first listed on a tie;
        // when every one is unknown, the first.
        let known = entities.indices.filter { entities[$0].category != "unknown" }
        let candidates = known.isEmpty ? Array(entities.indices.prefix(1)) : known
        var best: Int?
        for index in candidates where best == nil || (entities[index].confidence ?? 0) > (entities[best!].confidence ?? 0) {
            best = index
        }
        if let best { entities[best].isPrimary = true }
        self.entities = entities
        self.primary = best
    }

    /// The result row's own columns, as `row_to_json` writes them (absent means NULL).
    var resultColumns: [String: Any] {
        let primary = self.primary.map { entities[$0] }
        let known = entities.contains { $0.category != "unknown" }
        var details: [String: Any] = ["response_format_version": "3.0", "entity_count": entities.count]
        details["execution_name"] = answer["execution_name"] as? String
        var columns: [String: Any] = [
            "category": primary?.category ?? "unknown",
            "confidence": primary?.confidence ?? 0,
            "text_identifiers": primary?.identifiers ?? [],
            "outcome": known ? "identified" : "unidentified",
            "details": details
        ]
        columns["subcategory"] = primary == nil ? "unidentified" : primary?.subtype
        columns["operator"] = primary?.serviceOperator
        columns["fleet_id"] = primary?.fleetID
        columns["license_plate"] = primary?.licensePlate
        return columns
    }

    private static func entity(_ item: [String: Any]) -> Entity {
        let type = item["type"] as? String ?? "unknown"
        let parts = type.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let identifiers = item["identifiers"] as? [String] ?? []
        var entity = Entity(
            type: type, category: parts[0].isEmpty ? "unknown" : parts[0],
            subtype: parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil,
            serviceOperator: item["operator"] as? String, identifiers: identifiers,
            confidence: item["confidence"] as? Double, properties: item["properties"] as? NSDictionary ?? [:])
        // prefix:value; the first of each kind fills the typed field.
        for identifier in identifiers {
            let pieces = identifier.split(separator: ":", maxSplits: 1).map(String.init)
            guard pieces.count == 2 else { entity.otherIDs.append(identifier); continue }
            switch pieces[0] {
            case "fleet", "fleet_id": entity.fleetID = entity.fleetID ?? pieces[1]
            case "license_plate":
                guard entity.licensePlate == nil else { continue }
                let plate = pieces[1].split(separator: ":", maxSplits: 1).map(String.init)
                entity.licensePlate = plate.count == 2 ? plate[1] : pieces[1]
                entity.jurisdiction = plate.count == 2 ? plate[0] : nil
            case "container_id": entity.containerID = entity.containerID ?? pieces[1]
            case "tail_id": entity.tailID = entity.tailID ?? pieces[1]
            case "other_id": entity.otherIDs.append(pieces[1])
            default: entity.otherIDs.append(identifier)
            }
        }
        return entity
    }
}

extension ReferenceReading.Entity {
    /// The same entity as stored (`row_to_json` of discern.entities).
    init(row: [String: Any]) {
        self.init(
            type: row["type"] as? String ?? "", category: row["category"] as? String ?? "", subtype: row["subtype"] as? String,
            serviceOperator: row["operator"] as? String, fleetID: row["fleet_id"] as? String,
            licensePlate: row["license_plate"] as? String, jurisdiction: row["license_plate_jurisdiction"] as? String,
            containerID: row["container_id"] as? String, tailID: row["tail_id"] as? String,
            otherIDs: row["other_ids"] as? [String] ?? [], identifiers: row["identifiers"] as? [String] ?? [],
            confidence: row["confidence"] as? Double, properties: row["properties"] as? NSDictionary ?? [:],
            isPrimary: row["is_primary"] as? Bool ?? false)
    }
}
