import CurlHTTP
import Foundation
import Imaging

/// Builds the backends a worker serves from its environment: a backend is on when its URL is
/// set. Credentials come from the environment or from one file per secret in a credentials
/// directory (`DISCERN_CREDENTIALS_DIR`, or systemd's `$CREDENTIALS_DIRECTORY`), named like the
/// variable (`SecretFiles`). Every value is checked here, at start: a bad URL or number stops
/// the worker with one line instead of failing job by job. docs/backends.md lists every variable.
public struct BackendEnvironment: Sendable {
    public let variables: [String: String]

    public init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    public var configuredBackendNames: [String] {
        Services.all.filter { value($0.urlVariable) != nil }.map(\.name)
    }

    /// One HTTP client and one caller per backend: each service gets its own threads and its
    /// own adaptive concurrency limit, so a slow one cannot hold up another's calls.
    public func backends(gate: any RateGate, maxConcurrentCalls: Int,
                         retry: ServiceCaller.RetryPolicy = .init()) throws(BackendError) -> [any AnalysisBackend] {
        func caller() -> ServiceCaller {
            let http = CurlHTTPClient(configuration: .init(threads: min(maxConcurrentCalls + 2, 64)))
            return ServiceCaller(http: http, gate: gate, maxConcurrentCalls: maxConcurrentCalls, retry: retry)
        }
        // One cap on every call's duration, for a gateway in front that cuts earlier.
        let timeout = try number("DISCERN_HTTP_TIMEOUT_SECONDS", in: 1...3600)
        var backends: [any AnalysisBackend] = []
        if let url = try url(Services.discerner.urlVariable) {
            var configuration = DiscernerBackend.Configuration(baseURL: url, imagePolicy: try discernerPolicy())
            if let timeout {
                configuration.requestTimeoutSeconds = timeout
                configuration.uploadTimeoutSeconds = timeout
                configuration.analyzeTimeoutSeconds = timeout
            }
            configuration.uploadAllowedHosts = Set((value("DISCERN_UPLOAD_ALLOWED_HOSTS") ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            backends.append(DiscernerBackend(configuration: configuration, caller: caller()))
        }
        if let url = try url(Services.ooto.urlVariable) {
            var configuration = OOTOBackend.Configuration(baseURL: url, appID: try required("DISCERN_OOTO_APP_ID", for: Services.ooto.name),
                                                          appKey: try required("DISCERN_OOTO_APP_KEY", for: Services.ooto.name))
            configuration.checkLiveness = try flag("DISCERN_OOTO_CHECK_LIVENESS") ?? false
            configuration.checkDeepfake = try flag("DISCERN_OOTO_CHECK_DEEPFAKE") ?? false
            configuration.matchThreshold = try number("DISCERN_OOTO_MATCH_THRESHOLD", in: 0...1)
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(OOTOBackend(configuration: configuration, caller: caller()))
        }
        if let endpoint = try url(Services.azureFace.urlVariable) {
            var configuration = AzureFaceBackend.Configuration(
                endpoint: endpoint, subscriptionKey: try required("DISCERN_AZURE_FACE_KEY", for: Services.azureFace.name),
                personGroupID: value("DISCERN_AZURE_FACE_PERSON_GROUP"), largePersonGroupID: value("DISCERN_AZURE_FACE_LARGE_PERSON_GROUP"))
            for (name, id) in [("DISCERN_AZURE_FACE_PERSON_GROUP", configuration.personGroupID),
                               ("DISCERN_AZURE_FACE_LARGE_PERSON_GROUP", configuration.largePersonGroupID)] {
                guard let id else { continue }
                do { _ = try AzurePersonGroup(id: id, isLarge: false) } catch { throw BackendError.misconfigured("\(name): \(error.message)") }
            }
            if let threshold = try number("DISCERN_AZURE_FACE_THRESHOLD", in: 0...1) { configuration.acceptanceThreshold = threshold }
            if let model = try choice("DISCERN_AZURE_FACE_RECOGNITION_MODEL", AzureFaceBackend.recognitionModels) { configuration.recognitionModel = model }
            if let model = try choice("DISCERN_AZURE_FACE_DETECTION_MODEL", ["detection_01", "detection_02", "detection_03"]) {
                configuration.detectionModel = model
            }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(AzureFaceBackend(configuration: configuration, caller: caller()))
        }
        if let url = try url(Services.landmark.urlVariable) {
            var configuration = LandmarkBackend.Configuration(baseURL: url)
            if let threshold = try number("DISCERN_LANDMARK_UNSURE_BELOW", in: 0...1) { configuration.unsureBelow = threshold }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(LandmarkBackend(configuration: configuration, caller: caller()))
        }
        if let url = try url(Services.unissey.urlVariable) {
            var configuration = UnisseyBackend.Configuration(baseURL: url, apiKey: try required("DISCERN_UNISSEY_API_KEY", for: Services.unissey.name))
            if let field = try choice("DISCERN_UNISSEY_METADATA_FIELD", ["selfie-metadata", "metadata"]) { configuration.metadataField = field }
            if let bytes = try number("DISCERN_UNISSEY_MAX_BYTES", in: 1024...1_000_000_000) { configuration.videoPolicy.maxBytes = Int(bytes) }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(UnisseyBackend(configuration: configuration, caller: caller()))
        }
        return backends
    }

    /// A service's image policy as a worker of this environment applies it: `discern prepare`
    /// shows what a worker would send. Nil for a service that takes videos.
    public func imagePolicy(for service: RemoteService) throws(BackendError) -> ImagePolicy? {
        service.name == Services.discerner.name ? try discernerPolicy() : service.imagePolicy
    }

    /// Image Discerner's policy with its overrides.
    private func discernerPolicy() throws(BackendError) -> ImagePolicy {
        var policy = ImagePolicy.discerner
        if let bytes = try number("DISCERN_DISCERNER_MAX_BYTES", in: 10_000...50_000_000) { policy.maxBytes = Int(bytes) }
        if let side = try number("DISCERN_DISCERNER_MAX_DIMENSION", in: 64...16384) { policy.maxDimension = Int(side) }
        if let floor = try number("DISCERN_DISCERNER_TRANSFORM_FLOOR", in: 0...16384) { policy.transformFloor = floor == 0 ? nil : Int(floor) }
        return policy
    }

    func value(_ name: String) -> String? {
        guard let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    private func url(_ name: String) throws(BackendError) -> String? {
        try value(name).map { text throws(BackendError) in try ConfigurationValue.serviceURL(text, name: name) }
    }

    private func number(_ name: String, in range: ClosedRange<Double>) throws(BackendError) -> Double? {
        try value(name).map { text throws(BackendError) in try ConfigurationValue.number(text, name: name, in: range) }
    }

    private func flag(_ name: String) throws(BackendError) -> Bool? {
        try value(name).map { text throws(BackendError) in try ConfigurationValue.flag(text, name: name) }
    }

    private func choice(_ name: String, _ allowed: [String]) throws(BackendError) -> String? {
        guard let text = value(name) else { return nil }
        guard allowed.contains(text) else {
            throw BackendError.misconfigured("\(name)=\(ConfigurationValue.shown(text)) must be one of \(allowed.joined(separator: ", "))")
        }
        return text
    }

    private func required(_ name: String, for backend: String) throws(BackendError) -> Secret {
        if let secret = try secret(name) { return secret }
        throw BackendError.misconfigured("the \(backend) backend needs \(name): set it in the environment, or put it in a file named \(name) in $DISCERN_CREDENTIALS_DIR (readable by the worker only)")
    }

    /// The environment first, then a file per secret.
    public func secret(_ name: String) throws(BackendError) -> Secret? {
        if let text = value(name) { return Secret(text) }
        for directory in [value("DISCERN_CREDENTIALS_DIR"), value("CREDENTIALS_DIRECTORY")].compactMap({ $0 }) {
            if let secret = try SecretFiles.read((directory as NSString).appendingPathComponent(name)) { return secret }
        }
        return nil
    }
}
