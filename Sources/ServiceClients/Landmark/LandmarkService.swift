import Imaging

extension Services {
    public static let landmark = RemoteService(
        LandmarkClient.self, name: "landmark", title: "landmark predictor", actions: ["predict"],
        imagePolicy: .landmark, rateLimitKeys: ["landmark"])
}

extension LandmarkClient {
    struct Configuration: ClientConfiguration {
        /// Its variables: `url` turns it on.
        enum Variable: String, ServiceVariable {
            case url = "DISCERN_LANDMARK_URL", unsureBelow = "DISCERN_LANDMARK_UNSURE_BELOW"
        }

        /// The service root; `/api/prediction/predict` is added.
        var baseURL: String
        var unsureBelow: Double
        var requestTimeoutSeconds: Double

        init(_ environment: ServiceEnvironment, url: String) throws(ServiceError) {
            baseURL = url.withoutTrailingSlash
            unsureBelow = try environment.number(Variable.unsureBelow, in: 0...1) ?? 0.55
            requestTimeoutSeconds = try environment.callTimeout() ?? 60
        }
    }
}

extension ImagePolicy {
    /// The landmark predictor: .jpg/.jpeg/.png, at most 10 MB.
    public static let landmark = ImagePolicy()
}
