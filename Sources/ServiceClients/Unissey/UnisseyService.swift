import Imaging

extension Services {
    public static let unissey = RemoteService(
        UnisseyClient.self, name: "unissey", title: "Unissey", actions: ["analyze"],
        imagePolicy: nil, rateLimitKeys: ["unissey"])
}

extension UnisseyClient {
    struct Configuration: ClientConfiguration {
        /// Its variables: `url` turns it on; `metadataField` is `selfie-metadata` (one source says
        /// `metadata`).
        enum Variable: String, ServiceVariable {
            case url = "DISCERN_UNISSEY_URL", apiKey = "DISCERN_UNISSEY_API_KEY",
                metadataField = "DISCERN_UNISSEY_METADATA_FIELD", maxBytes = "DISCERN_UNISSEY_MAX_BYTES"
        }

        /// The service root; `/api/v3/analyze` is added.
        var baseURL: String
        var apiKey: Secret
        var metadataField: String
        var videoPolicy = VideoPolicy.unissey
        var requestTimeoutSeconds: Double

        init(_ environment: ServiceEnvironment, url: String) throws(ServiceError) {
            baseURL = url.withoutTrailingSlash
            apiKey = try environment.required(Variable.apiKey, for: Services.unissey.name)
            metadataField = try environment.choice(Variable.metadataField, ["selfie-metadata", "metadata"]) ?? "selfie-metadata"
            if let bytes = try environment.number(Variable.maxBytes, in: 1024...1_000_000_000) { videoPolicy.maxBytes = Int(bytes) }
            requestTimeoutSeconds = try environment.callTimeout() ?? 120
        }
    }
}

extension VideoPolicy {
    /// Unissey publishes no limit; 20 MB is far above a selfie clip of a few seconds.
    public static let unissey = VideoPolicy(maxBytes: 20_000_000)
}
