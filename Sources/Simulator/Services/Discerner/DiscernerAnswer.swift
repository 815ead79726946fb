import Crypto
import Foundation

/// A deterministic Image Discerner answer: the same bytes always get the same scene, and
/// different images get plausibly different ones. The scene is rendered in format 3.0 (what
/// the service's `aggregate.py` emits) or 2.0 (its primary subject only).
///
/// Like the real inference engine, 3.0 always lists at least one entity: an image with nothing
/// recognised gets one `unknown` entity with confidence 0.
struct DiscernerScene {
    struct Thing {
        let type: String
        let serviceOperator: String?
        let identifiers: [String]
        let confidence: Double
        let properties: [String: Any]
    }

    /// Most confident first: the one format 2.0 reports.
    private(set) var things: [Thing]
    /// The `classification_provider` and `text_provider` the answer names.
    private(set) var provider = "simulator"

    private static let vehicles: [(operator: String, type: String, fleetPrefix: String)] = [
        ("UPS", "commercial_vehicle:van", "1Z"),
        ("USPS", "commercial_vehicle:step_van", ""),
        ("FedEx", "commercial_vehicle:tractor_trailer", "FX"),
        ("DHL", "commercial_vehicle:panel_truck", "DHL"),
        ("Amazon", "commercial_vehicle:van", "AMZ")
    ]
    private static let jurisdictions = ["california", "texas", "oregon", "unknown"]
    private static let lines: [(operator: String, prefix: String)] = [("MSC", "MSCU"), ("Maersk", "MSKU"), ("Evergreen", "EGHU")]

    /// The scene `provider` reports: the baseline's, changed in one field on the photos it
    /// disagrees about (`DiscernerProvider`).
    init(image: Data, provider: DiscernerProvider) {
        self.init(image: image)
        self.provider = provider.name
        guard provider.disagreement > 0, let field = DiscernerProvider.disagreement(of: image, share: provider.disagreement) else { return }
        things[0] = Self.changed(things[0], in: field)
    }

    /// What another provider says instead, in `field` only.
    private static func changed(_ thing: Thing, in field: DiscernerProvider.Field) -> Thing {
        func replacing(_ prefix: String, _ change: (String) -> String) -> [String] {
            thing.identifiers.map { $0.hasPrefix(prefix + ":") ? prefix + ":" + change(String($0.dropFirst(prefix.count + 1))) : $0 }
        }
        // The last character, moved on by one: a misread digit or letter.
        func misread(_ text: String) -> String {
            guard let last = text.unicodeScalars.last else { return text + "1" }
            let next: UnicodeScalar =
                switch last {
                case "9": "0"
                case "Z": "A"
                default: UnicodeScalar(last.value + 1) ?? "0"
                }
            return String(text.unicodeScalars.dropLast()) + String(next)
        }
        switch field {
        case .category:
            let type = thing.type == "unknown" ? "commercial_vehicle:van" : "truck:box_truck"
            return Thing(
                type: type, serviceOperator: thing.serviceOperator, identifiers: thing.identifiers,
                confidence: thing.type == "unknown" ? 0.55 : thing.confidence, properties: thing.properties)
        case .serviceOperator:
            let names = vehicles.map(\.operator)
            let other = names.first { $0 != thing.serviceOperator } ?? "UPS"
            return Thing(
                type: thing.type, serviceOperator: other, identifiers: thing.identifiers, confidence: thing.confidence, properties: thing.properties)
        case .fleetID:
            return Thing(
                type: thing.type, serviceOperator: thing.serviceOperator, identifiers: replacing("fleet", misread),
                confidence: thing.confidence, properties: thing.properties)
        case .licensePlate:
            // The plate's jurisdiction stays; its last character is misread.
            return Thing(
                type: thing.type, serviceOperator: thing.serviceOperator, identifiers: replacing("license_plate", misread),
                confidence: thing.confidence, properties: thing.properties)
        }
    }

    init(image: Data) {
        let digest = Array(SHA256.hash(data: image))
        func number(_ at: Int) -> Int { digest[at...(at + 3)].reduce(0) { $0 << 8 | Int($1) } }
        func confidence(_ at: Int, from low: Double) -> Double { ((low + Double(digest[at]) / 255 * (0.99 - low)) * 100).rounded() / 100 }
        switch digest[0] % 16 {
        case 0, 1:  // nothing the service recognises
            things = [Thing(type: "unknown", serviceOperator: nil, identifiers: [], confidence: 0, properties: [:])]
        case 2:  // an aircraft
            let tail = "N\(100 + number(4) % 900)" + String(UnicodeScalar(UInt8(65 + Int(digest[9]) % 26)))
            things = [
                Thing(
                    type: "commercial_vehicle:jet_aircraft", serviceOperator: "FedEx", identifiers: ["tail_id:\(tail)"],
                    confidence: confidence(2, from: 0.7), properties: [:])
            ]
        default:
            let vehicle = Self.vehicles[Int(digest[1]) % Self.vehicles.count]
            // USPS numbers its vans with seven digits; the others use a prefix and four.
            let fleet =
                vehicle.fleetPrefix.isEmpty
                ? String(format: "%07d", number(4) % 10_000_000)
                : vehicle.fleetPrefix + String(format: "%04d", number(4) % 10_000)
            let letters = String((0..<3).map { Character(UnicodeScalar(UInt8(65 + Int(digest[8 + $0]) % 26))) })
            let plate = letters + String(format: "%04d", (number(12) / 7) % 10_000)
            let jurisdiction = Self.jurisdictions[Int(digest[11]) % Self.jurisdictions.count]
            var scene = [
                Thing(
                    type: vehicle.type, serviceOperator: vehicle.operator,
                    identifiers: ["fleet:\(fleet)", "license_plate:\(jurisdiction):\(plate)"],
                    confidence: confidence(2, from: 0.8), properties: [:])
            ]
            // One image in eight also shows a container behind the vehicle, less surely.
            if digest[3] % 8 == 0 {
                let line = Self.lines[Int(digest[5]) % Self.lines.count]
                scene.append(
                    Thing(
                        type: "cargo_container", serviceOperator: line.operator,
                        identifiers: ["container_id:\(line.prefix)\(String(format: "%07d", number(16) % 10_000_000))"],
                        confidence: min(confidence(6, from: 0.5), scene[0].confidence - 0.01), properties: ["size_code": "45G1"]))
            }
            things = scene
        }
    }

    func formatThree(imageKey: String, processingMilliseconds: Int) -> [String: Any] {
        [
            "analysis_complete": true,
            "timestamp": ISO8601DateFormatter().string(from: Date()),
            "entities": things.map { thing -> [String: Any] in
                [
                    "type": thing.type, "operator": thing.serviceOperator ?? NSNull(), "identifiers": thing.identifiers,
                    "confidence": thing.confidence, "properties": thing.properties
                ]
            },
            "processing_metadata": metadata(imageKey: imageKey, milliseconds: processingMilliseconds, version: "3.0")
        ]
    }

    func formatTwo(imageKey: String, processingMilliseconds: Int, width: Int, height: Int) -> [String: Any] {
        let thing = things[0]
        let parts = thing.type.split(separator: ":", maxSplits: 1).map(String.init)
        let known = parts[0] != "unknown"
        func value(_ prefix: String) -> Any {
            thing.identifiers.first { $0.hasPrefix(prefix + ":") }.map { String($0.dropFirst(prefix.count + 1)) } ?? NSNull()
        }
        let subcategory: Any = !known ? "unidentified" : parts.count > 1 ? parts[1] as Any : NSNull()
        let plate = (value("license_plate") as? String).map { $0.split(separator: ":", maxSplits: 1).last.map(String.init) ?? $0 }
        return [
            "analysis_complete": true,
            "timestamp": ISO8601DateFormatter().string(from: Date()),
            "primary_subject": [
                "category": known ? parts[0] : "unknown", "subcategory": subcategory,
                "operator": thing.serviceOperator ?? NSNull(), "fleet_id": value("fleet"), "confidence": thing.confidence,
                "additional_details": [
                    "license_plate": plate ?? NSNull(),
                    "text_identifiers": thing.identifiers.map { $0.split(separator: ":").last.map(String.init) ?? $0 },
                    "description": known
                        ? "\(thing.serviceOperator ?? "unmarked") \(parts.last ?? "") (\(width)x\(height) image)"
                        : "No recognisable vehicle or subject (\(width)x\(height) image)."
                ] as [String: Any]
            ] as [String: Any],
            "detailed_analysis": ["image_width": width, "image_height": height, "simulated": true],
            "processing_metadata": metadata(imageKey: imageKey, milliseconds: processingMilliseconds, version: "2.0")
        ]
    }

    private func metadata(imageKey: String, milliseconds: Int, version: String) -> [String: Any] {
        [
            "total_processing_time_ms": milliseconds, "classification_provider": provider, "text_provider": provider,
            "image_key": "processed/\(imageKey)", "response_format_version": version
        ]
    }
}
