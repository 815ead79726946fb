import Foundation
import Imaging

/// The preparation policy a result's bytes were made under, as `results.provenance` keeps it
/// (`preparation`): what shapes the bytes a service sees, so a result can be told apart from
/// one made under another budget or size.
enum PolicyRecord {
    static func json(_ policy: ImagePolicy) -> String {
        encode([
            "max_bytes": policy.maxBytes, "min_bytes": policy.minBytes, "max_dimension": policy.maxDimension, "min_dimension": policy.minDimension,
            "transform_floor": policy.transformFloor, "formats": policy.acceptedFormats.map(\.rawValue).sorted(), "quality": policy.quality,
            "min_quality": policy.minQuality, "keep_metadata": policy.keepMetadata
        ])
    }

    static func json(_ policy: VideoPolicy) -> String {
        encode(["max_bytes": policy.maxBytes, "containers": policy.acceptedContainers.map(\.rawValue).sorted()])
    }

    private static func encode(_ fields: [String: Any?]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: fields.compactMapValues { $0 }, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
