import Imaging

extension Services {
    public static let ooto = RemoteService(
        OOTOClient.self, name: "ooto", title: "OOTO Face", actions: ["identify", "enroll", "delete"],
        imagePolicy: .ooto, rateLimitKeys: ["ooto"])
}

extension OOTOClient {
    struct Configuration: ClientConfiguration {
        /// Its variables: `url` turns it on.
        enum Variable: String, ServiceVariable {
            case url = "DISCERN_OOTO_URL", appID = "DISCERN_OOTO_APP_ID", appKey = "DISCERN_OOTO_APP_KEY",
                checkLiveness = "DISCERN_OOTO_CHECK_LIVENESS", checkDeepfake = "DISCERN_OOTO_CHECK_DEEPFAKE",
                matchThreshold = "DISCERN_OOTO_MATCH_THRESHOLD"
        }

        /// e.g. `https://cloud.ooto-ai.com/api/v1.0`.
        var baseURL: String
        var appID: Secret
        var appKey: Secret
        var checkLiveness: Bool
        var checkDeepfake: Bool
        /// The service decides a match (a `templateId` in the search result). When set, a hit
        /// must also reach this similarity: a stricter rule of one's own, off by default.
        var matchThreshold: Double?
        var requestTimeoutSeconds: Double

        init(_ environment: ServiceEnvironment, url: String) throws(ServiceError) {
            baseURL = url.withoutTrailingSlash
            appID = try environment.required(Variable.appID, for: Services.ooto.name)
            appKey = try environment.required(Variable.appKey, for: Services.ooto.name)
            checkLiveness = try environment.flag(Variable.checkLiveness) ?? false
            checkDeepfake = try environment.flag(Variable.checkDeepfake) ?? false
            matchThreshold = try environment.number(Variable.matchThreshold, in: 0...1)
            requestTimeoutSeconds = try environment.callTimeout() ?? 60
        }
    }
}

extension ImagePolicy {
    /// OOTO: JPEG or PNG; a face needs about 200 x 200 px, so smaller images cannot match.
    public static let ooto = ImagePolicy(minDimension: 200)
}
