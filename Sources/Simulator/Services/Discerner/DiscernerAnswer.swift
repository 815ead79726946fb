import Crypto
import Foundation

/// A deterministic Image Discerner format 2.0 `body`: the same bytes always get the same
/// answer, and different images get plausibly different ones.
enum DiscernerAnswer {
    private static let fleets: [(operator: String, category: String, subcategory: String, fleetPrefix: String)] = [
        ("UPS", "vehicle", "delivery_truck", "1Z"),
        ("USPS", "vehicle", "mail_truck", "USPS-"),
        ("FedEx", "vehicle", "delivery_van", "FX"),
        ("DHL", "vehicle", "cargo_van", "DHL"),
        ("Amazon", "vehicle", "delivery_van", "AMZ"),
    ]

    static func body(for image: Data, imageKey: String, width: Int, height: Int) -> [String: Any] {
        let digest = Array(SHA256.hash(data: image))
        let number = digest[4...7].reduce(0) { $0 << 8 | Int($1) }
        let timestamp = ISO8601DateFormatter().string(from: Date())
        var subject: [String: Any]
        // One image in eight shows nothing the service recognises.
        if digest[0] % 8 == 0 {
            subject = [
                "category": "unknown", "subcategory": "unidentified", "operator": NSNull(), "fleet_id": NSNull(),
                "confidence": 0.0,
                "additional_details": ["license_plate": NSNull(), "text_identifiers": [String](),
                                       "description": "No recognisable vehicle or subject (\(width)x\(height) image)."],
            ]
        } else {
            let fleet = fleets[Int(digest[1]) % fleets.count]
            let fleetID = fleet.fleetPrefix + String(format: "%04d", number % 10_000)
            let letters = (0..<3).map { Character(UnicodeScalar(UInt8(65 + Int(digest[8 + $0]) % 26))) }
            let plate = String(letters) + "-" + String(format: "%04d", (number / 10_000) % 10_000)
            let confidence = 0.80 + Double(digest[2]) / 255.0 * 0.19
            subject = [
                "category": fleet.category, "subcategory": fleet.subcategory, "operator": fleet.operator,
                "fleet_id": fleetID, "confidence": (confidence * 1000).rounded() / 1000,
                "additional_details": [
                    "license_plate": plate, "text_identifiers": [fleet.operator, fleetID],
                    "description": "\(fleet.operator) \(fleet.subcategory.replacingOccurrences(of: "_", with: " ")) with fleet number \(fleetID) and plate \(plate).",
                ],
            ]
        }
        return [
            "analysis_complete": true,
            "timestamp": timestamp,
            "primary_subject": subject,
            "detailed_analysis": ["image_width": width, "image_height": height, "simulated": true],
            "processing_metadata": [
                "total_processing_time_ms": 40 + Int(digest[3]), "classification_provider": "simulator",
                "text_provider": "simulator", "image_key": imageKey, "response_format_version": "2.0",
            ],
        ]
    }

    /// The same answer in format 3.0: the primary subject becomes the one entity of `entities`,
    /// identifiers as `{type, value}` pairs.
    static func formatThree(_ body: [String: Any]) -> [String: Any] {
        var body = body
        let subject = body.removeValue(forKey: "primary_subject") as? [String: Any] ?? [:]
        let details = subject["additional_details"] as? [String: Any] ?? [:]
        var entities: [[String: Any]] = []
        if subject["category"] as? String != "unknown" {
            var identifiers: [[String: Any]] = []
            if let fleet = subject["fleet_id"] as? String { identifiers.append(["type": "fleet_id", "value": fleet]) }
            if let plate = details["license_plate"] as? String { identifiers.append(["type": "license_plate", "value": plate]) }
            entities.append([
                "type": subject["category"] ?? "unknown", "operator": subject["operator"] ?? NSNull(), "identifiers": identifiers,
                "confidence": subject["confidence"] ?? 0,
                "properties": ["subcategory": subject["subcategory"] ?? NSNull(), "description": details["description"] ?? NSNull()],
            ])
        }
        body["entities"] = entities
        var metadata = body["processing_metadata"] as? [String: Any] ?? [:]
        metadata["response_format_version"] = "3.0"
        body["processing_metadata"] = metadata
        return body
    }
}
