import CurlHTTP
import Foundation
import Imaging

/// Builds the clients a worker serves with from its environment: a service is on when its URL is
/// set, and each service's own configuration reads its variables (`Services`). Credentials come
/// from the environment or from one file per secret in a credentials directory
/// (`DISCERN_CREDENTIALS_DIR`, or systemd's `$CREDENTIALS_DIRECTORY`), named like the variable
/// (`SecretFiles`). Every value is checked here, at start: a bad URL or number stops the worker
/// with one line instead of failing job by job. docs/services.md lists every variable.
public struct ServiceEnvironment: Sendable {
    public let variables: [String: String]

    public init(_ variables: [String: String]) {
        self.variables = variables
    }

    public var configuredServiceNames: [String] {
        Services.all.filter { value($0.urlVariable) != nil }.map(\.name)
    }

    /// One HTTP client and one caller per service: each service gets its own threads and its
    /// own adaptive concurrency limit, so a slow one cannot hold up another's calls.
    public func clients(
        gate: any RateGate, maxConcurrentCalls: Int,
        retry: ServiceCaller.RetryPolicy = .init()
    ) throws(ServiceError) -> [any AnalysisClient] {
        var clients: [any AnalysisClient] = []
        for service in Services.all where value(service.urlVariable) != nil {
            let http = CurlHTTPClient(configuration: .init(threads: min(maxConcurrentCalls + 2, 64)))
            let caller = ServiceCaller(http: http, gate: gate, maxConcurrentCalls: maxConcurrentCalls, retry: retry, service: service.name)
            if let client = try service.client(self, caller: caller) { clients.append(client) }
        }
        return clients
    }

    /// A service's image policy as a worker of this environment applies it: `discern prepare`
    /// shows what a worker would send. Nil for a service that takes videos.
    public func imagePolicy(for service: RemoteService) throws(ServiceError) -> ImagePolicy? {
        service.name == Services.discerner.name ? try DiscernerClient.Configuration.policy(self) : service.imagePolicy
    }

    /// One cap on every call's duration (`DISCERN_HTTP_TIMEOUT_SECONDS`), for a gateway in
    /// front that cuts earlier; nil: each call's own.
    func callTimeout() throws(ServiceError) -> Double? {
        try number("DISCERN_HTTP_TIMEOUT_SECONDS", in: 1...3600)
    }

    func value(_ variable: some VariableName) -> String? {
        guard let text = variables[variable.variableName]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    func url(_ variable: some VariableName) throws(ServiceError) -> String? {
        let name = variable.variableName
        return try value(name).map { text throws(ServiceError) in try ConfigurationValue.serviceURL(text, name: name) }
    }

    func number(_ variable: some VariableName, in range: ClosedRange<Double>) throws(ServiceError) -> Double? {
        let name = variable.variableName
        return try value(name).map { text throws(ServiceError) in try ConfigurationValue.number(text, name: name, in: range) }
    }

    func flag(_ variable: some VariableName) throws(ServiceError) -> Bool? {
        let name = variable.variableName
        return try value(name).map { text throws(ServiceError) in try ConfigurationValue.flag(text, name: name) }
    }

    func choice(_ variable: some VariableName, _ allowed: [String]) throws(ServiceError) -> String? {
        let name = variable.variableName
        guard let text = value(name) else { return nil }
        guard allowed.contains(text) else {
            throw ServiceError.misconfigured("\(name)=\(ConfigurationValue.shown(text)) must be one of \(allowed.joined(separator: ", "))")
        }
        return text
    }

    func required(_ variable: some VariableName, for service: String) throws(ServiceError) -> Secret {
        let name = variable.variableName
        if let secret = try secret(name) { return secret }
        throw ServiceError.misconfigured(
            "the \(service) service needs \(name): set it in the environment, or put it in a file named \(name) in $DISCERN_CREDENTIALS_DIR (readable by the worker only)"
        )
    }

    /// The environment first, then a file per secret.
    public func secret(_ name: String) throws(ServiceError) -> Secret? {
        if let text = value(name) { return Secret(text) }
        for directory in [value("DISCERN_CREDENTIALS_DIR"), value("CREDENTIALS_DIRECTORY")].compactMap({ $0 }) {
            if let secret = try SecretFiles.read((directory as NSString).appendingPathComponent(name)) { return secret }
        }
        return nil
    }
}

/// A variable's name: written as a string, or as one of a service's own variables.
protocol VariableName {
    var variableName: String { get }
}

extension String: VariableName {
    var variableName: String { self }
}
