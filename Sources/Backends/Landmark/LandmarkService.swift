import Imaging

extension Services {
    public static let landmark = RemoteService(
        LandmarkBackend.self, name: "landmark", title: "landmark predictor", actions: ["predict"],
        imagePolicy: .landmark, rateLimitKeys: ["landmark"])
}

extension LandmarkBackend {
    struct Configuration: BackendConfiguration {
        /// Its variables: `url` turns it on.
        enum Variable: String, ServiceVariable {
            case url = "DISCERN_LANDMARK_URL", unsureBelow = "DISCERN_LANDMARK_UNSURE_BELOW"
        }

        /// The service root; `/api/prediction/predict` is added.
        var baseURL: String
        var unsureBelow: Double
        var requestTimeoutSeconds: Double

        init(_ environment: BackendEnvironment, url: String) throws(BackendError) {
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
