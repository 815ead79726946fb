import Foundation
import Imaging

extension Services {
    public static let discerner = RemoteService(
        DiscernerClient.self, name: "discerner", title: "Image Discerner", actions: ["analyze"],
        imagePolicy: .discerner, rateLimitKeys: [discernerUploadKey, discernerAnalyzeKey])
    static let discernerUploadKey = "discerner:upload-url"
    static let discernerAnalyzeKey = "discerner:analyze"
}

extension DiscernerClient {
    struct Configuration: ClientConfiguration {
        /// Its variables: `url` turns it on; `uploadAllowedHosts` names upload hosts that may be
        /// internal addresses (`*` for all, behind an HTTP proxy).
        enum Variable: String, ServiceVariable {
            case url = "DISCERN_DISCERNER_URL", maxBytes = "DISCERN_DISCERNER_MAX_BYTES",
                maxDimension = "DISCERN_DISCERNER_MAX_DIMENSION", transformFloor = "DISCERN_DISCERNER_TRANSFORM_FLOOR",
                uploadAllowedHosts = "DISCERN_UPLOAD_ALLOWED_HOSTS"
        }

        /// e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/prod`; no trailing slash needed.
        var baseURL: String
        var imagePolicy = ImagePolicy.discerner
        var requestTimeoutSeconds: Double = 30
        var uploadTimeoutSeconds: Double = 120
        /// The service polls its workflow for up to 300 s; wait a little longer than that.
        var analyzeTimeoutSeconds: Double = 330
        /// Fresh URLs to ask for when S3 says the presigned one expired, within one attempt.
        var expiredURLRetries = 2
        /// Upload hosts that may be internal addresses; the service's own host always may
        /// (`UploadGrant.Destinations`).
        var uploadAllowedHosts: Set<String> = []

        init(baseURL: String) { self.baseURL = baseURL.withoutTrailingSlash }

        init(_ environment: ServiceEnvironment, url: String) throws(ServiceError) {
            self.init(baseURL: url)
            imagePolicy = try Self.policy(environment)
            if let timeout = try environment.callTimeout() {
                (requestTimeoutSeconds, uploadTimeoutSeconds, analyzeTimeoutSeconds) = (timeout, timeout, timeout)
            }
            uploadAllowedHosts = Set(
                (environment.value(Variable.uploadAllowedHosts) ?? "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }

        /// Image Discerner's policy with this environment's overrides.
        static func policy(_ environment: ServiceEnvironment) throws(ServiceError) -> ImagePolicy {
            var policy = ImagePolicy.discerner
            if let bytes = try environment.number(Variable.maxBytes, in: 10_000...50_000_000) { policy.maxBytes = Int(bytes) }
            if let side = try environment.number(Variable.maxDimension, in: 64...16384) { policy.maxDimension = Int(side) }
            if let floor = try environment.number(Variable.transformFloor, in: 0...16384) { policy.transformFloor = floor == 0 ? nil : Int(floor) }
            return policy
        }
    }
}

extension ImagePolicy {
    /// Image Discerner: JPEG and PNG. Its docs say "up to 10 MB", but the service forwards the
    /// image base64-encoded inside a JSON request to Google Cloud Vision, whose requests are
    /// limited to 10,485,760 bytes: base64 makes 3 bytes 4, so at most 7,864,320 raw bytes, less
    /// the request's own JSON. 7,800,000 leaves 85 KB for that (docs/services.md). An image that
    /// must be re-encoded may shrink by a free JPEG decode scale down to 1,600 px: Vision asks
    /// 1024 x 768 for text detection, the service's finest need. The floor costs less CPU and
    /// sends fewer bytes than fitting 4096 px (bench/RESULTS.md, "Discerner policy").
    public static let discerner: ImagePolicy = {
        var policy = ImagePolicy(maxBytes: discernerMaxBytes)
        policy.transformFloor = 1600
        return policy
    }()
    public static let discernerMaxBytes = 7_800_000
}
