import CurlHTTP
import Foundation
import Imaging

/// Builds the backends a worker serves from its environment: a backend is on when its URL is
/// set. Credentials come from the environment or from one file per secret in a credentials
/// directory (`DISCERN_CREDENTIALS_DIR`, or systemd's `$CREDENTIALS_DIRECTORY`), named like the
/// variable, readable by the owner only. docs/backends.md lists every variable.
public struct BackendEnvironment: Sendable {
    public let variables: [String: String]

    public init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public var configuredBackendNames: [String] {
        [("discerner", "DISCERN_DISCERNER_URL"), ("ooto", "DISCERN_OOTO_URL"), ("azure-face", "DISCERN_AZURE_FACE_ENDPOINT"),
         ("landmark", "DISCERN_LANDMARK_URL"), ("unissey", "DISCERN_UNISSEY_URL")]
            .filter { value($0.1) != nil }.map(\.0)
    }

    /// One caller per backend, so each service gets its own adaptive concurrency limit.
    public func backends(http: CurlHTTPClient, gate: any RateGate, maxConcurrentCalls: Int,
                         retry: ServiceCaller.RetryPolicy = .init()) throws -> [any AnalysisBackend] {
        func caller() -> ServiceCaller { ServiceCaller(http: http, gate: gate, maxConcurrentCalls: maxConcurrentCalls, retry: retry) }
        // One cap on every call's duration, for a gateway in front that cuts earlier.
        let timeout = try number("DISCERN_HTTP_TIMEOUT_SECONDS")
        var backends: [any AnalysisBackend] = []
        if let url = value("DISCERN_DISCERNER_URL") {
            var configuration = DiscernerBackend.Configuration(baseURL: url)
            if let timeout {
                configuration.requestTimeoutSeconds = timeout
                configuration.uploadTimeoutSeconds = timeout
                configuration.analyzeTimeoutSeconds = timeout
            }
            backends.append(DiscernerBackend(configuration: configuration, caller: caller()))
        }
        if let url = value("DISCERN_OOTO_URL") {
            var configuration = OOTOBackend.Configuration(baseURL: url, appID: try required("DISCERN_OOTO_APP_ID", for: "ooto"),
                                                          appKey: try required("DISCERN_OOTO_APP_KEY", for: "ooto"))
            configuration.checkLiveness = try flag("DISCERN_OOTO_CHECK_LIVENESS") ?? false
            configuration.checkDeepfake = try flag("DISCERN_OOTO_CHECK_DEEPFAKE") ?? false
            if let threshold = try number("DISCERN_OOTO_MATCH_THRESHOLD") { configuration.matchThreshold = threshold }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(OOTOBackend(configuration: configuration, caller: caller()))
        }
        if let endpoint = value("DISCERN_AZURE_FACE_ENDPOINT") {
            var configuration = AzureFaceBackend.Configuration(
                endpoint: endpoint, subscriptionKey: try required("DISCERN_AZURE_FACE_KEY", for: "azure-face"),
                personGroupID: value("DISCERN_AZURE_FACE_PERSON_GROUP"), largePersonGroupID: value("DISCERN_AZURE_FACE_LARGE_PERSON_GROUP"))
            if let threshold = try number("DISCERN_AZURE_FACE_THRESHOLD") { configuration.acceptanceThreshold = threshold }
            if let model = value("DISCERN_AZURE_FACE_RECOGNITION_MODEL") { configuration.recognitionModel = model }
            if let model = value("DISCERN_AZURE_FACE_DETECTION_MODEL") { configuration.detectionModel = model }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(AzureFaceBackend(configuration: configuration, caller: caller()))
        }
        if let url = value("DISCERN_LANDMARK_URL") {
            var configuration = LandmarkBackend.Configuration(baseURL: url)
            if let threshold = try number("DISCERN_LANDMARK_UNSURE_BELOW") { configuration.unsureBelow = threshold }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(LandmarkBackend(configuration: configuration, caller: caller()))
        }
        if let url = value("DISCERN_UNISSEY_URL") {
            var configuration = UnisseyBackend.Configuration(baseURL: url, apiKey: try required("DISCERN_UNISSEY_API_KEY", for: "unissey"))
            if let field = value("DISCERN_UNISSEY_METADATA_FIELD") { configuration.metadataField = field }
            if let bytes = try number("DISCERN_UNISSEY_MAX_BYTES") { configuration.videoPolicy.maxBytes = Int(bytes) }
            if let timeout { configuration.requestTimeoutSeconds = timeout }
            backends.append(UnisseyBackend(configuration: configuration, caller: caller()))
        }
        return backends
    }

    func value(_ name: String) -> String? {
        guard let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    private func number(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite, number >= 0 else { throw Problem(description: "\(name)=\(text) is not a number") }
        return number
    }

    private func flag(_ name: String) throws -> Bool? {
        guard let text = value(name)?.lowercased() else { return nil }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw Problem(description: "\(name)=\(text) is not true or false")
        }
    }

    private func required(_ name: String, for backend: String) throws -> Secret {
        if let secret = try secret(name) { return secret }
        throw Problem(description: "the \(backend) backend needs \(name): set it in the environment, or put it in a file named \(name) in $DISCERN_CREDENTIALS_DIR (mode 0600)")
    }

    /// The environment first, then a file per secret. A file others can read is refused: a
    /// secret that leaked to other users is a problem to fix, not to use.
    func secret(_ name: String) throws -> Secret? {
        if let text = value(name) { return Secret(text) }
        for directory in [value("DISCERN_CREDENTIALS_DIR"), value("CREDENTIALS_DIRECTORY")].compactMap({ $0 }) {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
            guard mode & 0o077 == 0 else {
                throw Problem(description: "\(path) can be read by other users (mode \(String(mode, radix: 8))); run chmod 600 on it")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Problem(description: "\(path) cannot be read by the worker's user")
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw Problem(description: "\(path) is empty") }
            return Secret(text)
        }
        return nil
    }
}
