import Imaging
import MediaFiles

/// One service discern can call: everything the rest of the product knows about it. The CLI's
/// choices, the console's filters, the monitor's series, `discern prepare` and the backends
/// themselves all read it here; nowhere else in Sources names a service (docs/design.md).
public struct RemoteService: Sendable, Identifiable {
    /// The name jobs use in `jobs.backend`.
    public let name: String
    /// What people call it.
    public let title: String
    /// The actions it does; the first is its main one (`analyze`, the jobs table's default,
    /// stands for it where the service has no action of that name).
    public let actions: [String]
    /// What its images must fit; nil for a service that takes videos (sent as they are).
    public let imagePolicy: ImagePolicy?
    /// The variable whose presence turns it on in a worker.
    public let urlVariable: String
    /// Every variable it reads besides the URL (docs/backends.md explains each).
    public let variables: [String]
    /// The keys of `discern.rate_limits` its calls take a slot from.
    public let rateLimitKeys: [String]

    public var id: String { name }
}

/// The five services, Image Discerner first (the primary one and every default).
public enum Services {
    public static let discerner = RemoteService(
        name: "discerner", title: "Image Discerner", actions: ["analyze"], imagePolicy: .discerner,
        urlVariable: "DISCERN_DISCERNER_URL",
        variables: ["DISCERN_DISCERNER_MAX_BYTES", "DISCERN_DISCERNER_MAX_DIMENSION", "DISCERN_DISCERNER_TRANSFORM_FLOOR",
                    "DISCERN_UPLOAD_ALLOWED_HOSTS"],
        rateLimitKeys: [discernerUploadKey, discernerAnalyzeKey])
    static let discernerUploadKey = "discerner:upload-url"
    static let discernerAnalyzeKey = "discerner:analyze"

    public static let ooto = RemoteService(
        name: "ooto", title: "OOTO Face", actions: ["identify", "enroll", "delete"], imagePolicy: .ooto,
        urlVariable: "DISCERN_OOTO_URL",
        variables: ["DISCERN_OOTO_APP_ID", "DISCERN_OOTO_APP_KEY", "DISCERN_OOTO_CHECK_LIVENESS", "DISCERN_OOTO_CHECK_DEEPFAKE",
                    "DISCERN_OOTO_MATCH_THRESHOLD"],
        rateLimitKeys: ["ooto"])

    public static let azureFace = RemoteService(
        name: "azure-face", title: "Azure Face", actions: ["identify", "detect"], imagePolicy: .azureFace,
        urlVariable: "DISCERN_AZURE_FACE_ENDPOINT",
        variables: ["DISCERN_AZURE_FACE_KEY", "DISCERN_AZURE_FACE_PERSON_GROUP", "DISCERN_AZURE_FACE_LARGE_PERSON_GROUP",
                    "DISCERN_AZURE_FACE_THRESHOLD", "DISCERN_AZURE_FACE_RECOGNITION_MODEL", "DISCERN_AZURE_FACE_DETECTION_MODEL"],
        rateLimitKeys: ["azure-face"])

    public static let landmark = RemoteService(
        name: "landmark", title: "landmark predictor", actions: ["predict"], imagePolicy: .landmark,
        urlVariable: "DISCERN_LANDMARK_URL", variables: ["DISCERN_LANDMARK_UNSURE_BELOW"], rateLimitKeys: ["landmark"])

    public static let unissey = RemoteService(
        name: "unissey", title: "Unissey", actions: ["analyze"], imagePolicy: nil,
        urlVariable: "DISCERN_UNISSEY_URL",
        variables: ["DISCERN_UNISSEY_API_KEY", "DISCERN_UNISSEY_METADATA_FIELD", "DISCERN_UNISSEY_MAX_BYTES"],
        rateLimitKeys: ["unissey"])

    public static let all = [discerner, ooto, azureFace, landmark, unissey]
    public static var names: [String] { all.map(\.name) }

    public static func named(_ name: String) -> RemoteService? { all.first { $0.name == name } }
}

extension VideoPolicy {
    /// Unissey publishes no limit; 20 MB is far above a selfie clip of a few seconds.
    public static let unissey = VideoPolicy(maxBytes: 20_000_000)
}

/// The services' image policies, named for them here rather than in Imaging, which knows
/// policies and nothing of who asks for them.
extension ImagePolicy {
    /// Image Discerner: JPEG and PNG. Its docs say "up to 10 MB", but the service forwards the
    /// image base64-encoded inside a JSON request to Google Cloud Vision, whose requests are
    /// limited to 10,485,760 bytes: base64 makes 3 bytes 4, so at most 7,864,320 raw bytes, less
    /// the request's own JSON. 7,800,000 leaves 85 KB for that (docs/backends.md). An image that
    /// must be re-encoded may shrink by a free JPEG decode scale down to 1,600 px: Vision asks
    /// 1024 x 768 for text detection, the service's finest need (bench/RESULTS.md, "Discerner
    /// policy": 20 % less CPU, 46 % fewer bytes than fitting 4096 px).
    public static let discerner: ImagePolicy = {
        var policy = ImagePolicy(maxBytes: discernerMaxBytes)
        policy.transformFloor = 1600
        return policy
    }()
    public static let discernerMaxBytes = 7_800_000
    /// The landmark predictor: .jpg/.jpeg/.png, at most 10 MB.
    public static let landmark = ImagePolicy()
    /// Azure Face: JPEG, PNG, GIF, BMP from 1 KB to 6 MB; faces up to 4096 px.
    public static let azureFace = ImagePolicy(maxBytes: 6_000_000, minBytes: 1024, acceptedFormats: [.jpeg, .png, .gif])
    /// OOTO: JPEG or PNG; a face needs about 200 x 200 px, so smaller images cannot match.
    public static let ooto = ImagePolicy(minDimension: 200)

}
