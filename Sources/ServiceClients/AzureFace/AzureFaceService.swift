import Imaging
import MediaFiles

extension Services {
    public static let azureFace = RemoteService(
        AzureFaceClient.self, name: "azure-face", title: "Azure Face", actions: ["identify", "detect", "delete"],
        imagePolicy: .azureFace, rateLimitKeys: ["azure-face"])
}

extension AzureFaceClient {
    static let recognitionModels = ["recognition_01", "recognition_02", "recognition_03", "recognition_04"]
    static let detectionModels = ["detection_01", "detection_02", "detection_03"]

    struct Configuration: ClientConfiguration {
        /// Its variables: `url` turns it on.
        enum Variable: String, ServiceVariable {
            case url = "DISCERN_AZURE_FACE_ENDPOINT", key = "DISCERN_AZURE_FACE_KEY",
                personGroup = "DISCERN_AZURE_FACE_PERSON_GROUP",
                largePersonGroup = "DISCERN_AZURE_FACE_LARGE_PERSON_GROUP", threshold = "DISCERN_AZURE_FACE_THRESHOLD",
                recognitionModel = "DISCERN_AZURE_FACE_RECOGNITION_MODEL",
                detectionModel = "DISCERN_AZURE_FACE_DETECTION_MODEL"
        }

        /// e.g. `https://westeurope.api.cognitive.microsoft.com`; `/face/v1.0` is added.
        var endpoint: String
        var subscriptionKey: Secret
        var personGroupID: String?
        var largePersonGroupID: String?
        var recognitionModel: String
        var detectionModel: String
        /// The reference client accepts a match when the top candidate's confidence is above this.
        var acceptanceThreshold: Double
        var maxCandidates = 3
        var requestTimeoutSeconds: Double

        init(_ environment: ServiceEnvironment, url endpoint: String) throws(ServiceError) {
            let endpoint = endpoint.withoutTrailingSlash
            self.endpoint = endpoint.hasSuffix("/face/v1.0") ? String(endpoint.dropLast("/face/v1.0".count)) : endpoint
            subscriptionKey = try environment.required(Variable.key, for: Services.azureFace.name)
            personGroupID = try Self.group(environment, Variable.personGroup)
            largePersonGroupID = try Self.group(environment, Variable.largePersonGroup)
            acceptanceThreshold = try environment.number(Variable.threshold, in: 0...1) ?? 0.9
            recognitionModel = try environment.choice(Variable.recognitionModel, recognitionModels) ?? "recognition_04"
            detectionModel = try environment.choice(Variable.detectionModel, detectionModels) ?? "detection_03"
            requestTimeoutSeconds = try environment.callTimeout() ?? 30
        }

        /// A group id as the service takes it, checked at start.
        private static func group(_ environment: ServiceEnvironment, _ variable: Variable) throws(ServiceError) -> String? {
            guard let id = environment.value(variable) else { return nil }
            do { _ = try AzurePersonGroup(id: id, isLarge: false) } catch {
                throw ServiceError.misconfigured("\(variable.rawValue): \(error.message)")
            }
            return id
        }
    }
}

extension ImagePolicy {
    /// Azure Face: JPEG, PNG, GIF, BMP from 1 KB to 6 MB; faces up to 4096 px.
    public static let azureFace = ImagePolicy(maxBytes: 6_000_000, minBytes: 1024, acceptedFormats: [.jpeg, .png, .gif])
}
