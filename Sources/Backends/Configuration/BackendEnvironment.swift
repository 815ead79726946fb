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
        [("discerner", "DISCERN_DISCERNER_URL"), ("ooto", "DISCERN_OOTO_URL"), ("azure-face", "DISCERN_AZURE_FACE_ENDPOINT"),
         ("landmark", "DISCERN_LANDMARK_URL"), ("unissey", "DISCERN_UNISSEY_URL")]
            .filter { value($0.1) != nil }.map(\.0)
    }

    /// One HTTP client and one caller per backend: each service gets its own threads and its
    /// own adaptive concurrency limit, so a slow one cannot hold up another's calls.
    public func backends(gate: any RateGate, maxConcurrentCalls: Int,
                         retry: ServiceCaller.RetryPolicy = .init()) throws(ConfigurationProblem) -> [any AnalysisBackend] {
        func caller() -> ServiceCaller {
            let http = CurlHTTPClient(configuration: .init(threads: min(maxConcurrentCalls + 2, 64)))
            return ServiceCaller(http: http, gate: gate, maxConcurrentCalls: maxConcurrentCalls, retry: retry)
        }
        // One cap on every call's duration, for a gateway in front that cuts earlier.
        let timeout = try number("DISCERN_HTTP_TIMEOUT_SECONDS", in: 1...3600)
        var backends: [any AnalysisBackend] = []
        if let url = try url("DISCERN_DISCERNER_URL") {
            var configuration = DiscernerBackend.Configuration(baseURL: url)
            if let bytes = try number("DISCERN_DISCERNER_MAX_BYTES", in: 10_000...50_000_000) { configuration.imagePolicy.maxBytes = Int(bytes) }
            if let side = try number("DISCERN_DISCERNER_MAX_DIMENSION", in: 64...16384) { configuration.imagePolicy.maxDimension = Int(side) }
            if let floor = try number("DISCERN_DISCERNER_TRANSFORM_FLOOR", in: 0...16384) {
                configuration.imagePolicy.transformFloor = floor == 0 ? nil : Int(floor)
            }
            if let timeout {
                configuration.requestTimeoutSeconds = timeout
                configuration.uploadTimeoutSeconds = timeout
                configuration.analyzeTimeoutSeconds = timeout
            }
            configuration.uploadAllowedHosts = Set((value("DISCERN_UPLOAD_ALLOWED_HOSTS") ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            backends.append(DiscernerBackend(configuration: configuration, caller: caller()))
        }
        if let url = try url("DISCERN_OOTO_URL") {
            var configuration = OOTOBackend.Configuration(baseURL: url, appID: try required("DISCERN_OOTO_APP_ID", for: "ooto"),
                                                          appKey: try required("DISCERN_OOTO_APP_KEY", for: "ooto"))
            configuration.checkLiveness = try flag("DISCERN_OOTO_CHECK_LIVENESS") ?? false
            configuration.checkDeepfake = try flag("DISCERN_OOTO_CHECK_DEEPFAKE") ?? false
            configuration.matchThreshold = try number("DISCERN_OOTO_MATCH_THRESHOLD", in: 0...1)
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(OOTOBackend(configuration: configuration, caller: caller()))
        }
        if let endpoint = try url("DISCERN_AZURE_FACE_ENDPOINT") {
            var configuration = AzureFaceBackend.Configuration(
                endpoint: endpoint, subscriptionKey: try required("DISCERN_AZURE_FACE_KEY", for: "azure-face"),
                personGroupID: value("DISCERN_AZURE_FACE_PERSON_GROUP"), largePersonGroupID: value("DISCERN_AZURE_FACE_LARGE_PERSON_GROUP"))
            for (name, id) in [("DISCERN_AZURE_FACE_PERSON_GROUP", configuration.personGroupID),
                               ("DISCERN_AZURE_FACE_LARGE_PERSON_GROUP", configuration.largePersonGroupID)] {
                guard let id else { continue }
                do { _ = try AzurePersonGroup(id: id, isLarge: false) } catch { throw ConfigurationProblem("\(name): \(error.message)") }
            }
            if let threshold = try number("DISCERN_AZURE_FACE_THRESHOLD", in: 0...1) { configuration.acceptanceThreshold = threshold }
            if let model = try choice("DISCERN_AZURE_FACE_RECOGNITION_MODEL", AzureFaceBackend.recognitionModels) { configuration.recognitionModel = model }
            if let model = try choice("DISCERN_AZURE_FACE_DETECTION_MODEL", ["detection_01", "detection_02", "detection_03"]) {
                configuration.detectionModel = model
            }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(AzureFaceBackend(configuration: configuration, caller: caller()))
        }
        if let url = try url("DISCERN_LANDMARK_URL") {
            var configuration = LandmarkBackend.Configuration(baseURL: url)
            if let threshold = try number("DISCERN_LANDMARK_UNSURE_BELOW", in: 0...1) { configuration.unsureBelow = threshold }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(LandmarkBackend(configuration: configuration, caller: caller()))
        }
        if let url = try url("DISCERN_UNISSEY_URL") {
            var configuration = UnisseyBackend.Configuration(baseURL: url, apiKey: try required("DISCERN_UNISSEY_API_KEY", for: "unissey"))
            if let field = try choice("DISCERN_UNISSEY_METADATA_FIELD", ["selfie-metadata", "metadata"]) { configuration.metadataField = field }
            if let bytes = try number("DISCERN_UNISSEY_MAX_BYTES", in: 1024...1_000_000_000) { configuration.videoPolicy.maxBytes = Int(bytes) }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(UnisseyBackend(configuration: configuration, caller: caller()))
        }
        return backends
    }

    func value(_ name: String) -> String? {
        guard let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    private func url(_ name: String) throws(ConfigurationProblem) -> String? {
        try value(name).map { text throws(ConfigurationProblem) in try ConfigurationValue.serviceURL(text, name: name) }
    }

    private func number(_ name: String, in range: ClosedRange<Double>) throws(ConfigurationProblem) -> Double? {
        try value(name).map { text throws(ConfigurationProblem) in try ConfigurationValue.number(text, name: name, in: range) }
    }

    private func flag(_ name: String) throws(ConfigurationProblem) -> Bool? {
        try value(name).map { text throws(ConfigurationProblem) in try ConfigurationValue.flag(text, name: name) }
    }

    private func choice(_ name: String, _ allowed: [String]) throws(ConfigurationProblem) -> String? {
        guard let text = value(name) else { return nil }
        guard allowed.contains(text) else {
            throw ConfigurationProblem("\(name)=\(ConfigurationValue.shown(text)) must be one of \(allowed.joined(separator: ", "))")
        }
        return text
    }

    private func required(_ name: String, for backend: String) throws(ConfigurationProblem) -> Secret {
        if let secret = try secret(name) { return secret }
        throw ConfigurationProblem("the \(backend) backend needs \(name): set it in the environment, or put it in a file named \(name) in $DISCERN_CREDENTIALS_DIR (readable by the worker only)")
    }

    /// The environment first, then a file per secret.
    public func secret(_ name: String) throws(ConfigurationProblem) -> Secret? {
        if let text = value(name) { return Secret(text) }
        for directory in [value("DISCERN_CREDENTIALS_DIR"), value("CREDENTIALS_DIRECTORY")].compactMap({ $0 }) {
            if let secret = try SecretFiles.read((directory as NSString).appendingPathComponent(name)) { return secret }
        }
        return nil
    }
}
