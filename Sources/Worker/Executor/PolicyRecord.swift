import Imaging
import MediaFiles

/// The preparation policy a result's bytes were made under, as `results.provenance` keeps it
/// (`preparation`): what shapes the bytes a service sees, so a result can be told apart from
/// one made under another budget or size. Written by hand, not by JSONSerialization: it is made
/// for every job, and every value is a number, a boolean or a format's plain name.
enum PolicyRecord {
    static func json(_ policy: ImagePolicy) -> String {
        let formats = policy.acceptedFormats.map { "\"\($0.rawValue)\"" }.sorted().joined(separator: ",")
        let optional = [("max_dimension", policy.maxDimension), ("transform_floor", policy.transformFloor)]
            .compactMap { name, value in value.map { "\"\(name)\":\($0)," } }.joined()
        return "{\"max_bytes\":\(policy.maxBytes),\"min_bytes\":\(policy.minBytes),\(optional)\"min_dimension\":\(policy.minDimension),"
            + "\"formats\":[\(formats)],\"quality\":\(policy.quality),\"min_quality\":\(policy.minQuality),\"keep_metadata\":\(policy.keepMetadata)}"
    }

    static func json(_ policy: VideoPolicy) -> String {
        let containers = policy.acceptedContainers.map { "\"\($0.rawValue)\"" }.sorted().joined(separator: ",")
        return "{\"max_bytes\":\(policy.maxBytes),\"containers\":[\(containers)]}"
    }
}
