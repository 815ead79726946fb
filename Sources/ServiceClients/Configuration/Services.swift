import Imaging

/// One service discern can call: everything the rest of the product knows about it. The CLI's
/// choices, the console's filters, the monitor's series, `discern prepare` and the clients
/// themselves all read it here; nowhere else in Sources names a service (docs/design.md).
/// Each service defines its entry in its own folder (`DiscernerService.swift`, ...); adding one
/// is that folder and a line in `Services.all`.
public struct RemoteService: Sendable, Identifiable {
    /// The name jobs use in `jobs.backend` (the column keeps its name).
    public let name: String
    /// What people call it.
    public let title: String
    /// The actions it does; the first is its main one (`analyze`, the jobs table's default,
    /// stands for it where the service has no action of that name).
    public let actions: [String]
    /// What its images must fit; nil for a service that takes videos (sent as they are).
    public let imagePolicy: ImagePolicy?
    /// The variable whose presence turns it on in a worker.
    public let urlVariable: String
    /// Every variable it reads besides the URL (docs/services.md explains each).
    public let variables: [String]
    /// The keys of `discern.rate_limits` its calls take a slot from.
    public let rateLimitKeys: [String]
    /// Its client, from the worker's environment and the checked URL.
    let build: @Sendable (ServiceEnvironment, _ url: String, ServiceCaller) throws(ServiceError) -> any AnalysisClient

    public var id: String { name }

    /// - Parameter client: builds itself from the worker's environment, and names the variables it reads.
    init<Client: ConfiguredClient>(
        _ client: Client.Type, name: String, title: String, actions: [String],
        imagePolicy: ImagePolicy?, rateLimitKeys: [String]
    ) {
        self.name = name
        self.title = title
        self.actions = actions
        self.imagePolicy = imagePolicy
        urlVariable = Client.Configuration.Variable.url.rawValue
        variables = Client.Configuration.Variable.allCases.filter { $0 != .url }.map(\.rawValue)
        self.rateLimitKeys = rateLimitKeys
        build = { environment, url, caller throws(ServiceError) in Client(configuration: try .init(environment, url: url), caller: caller) }
    }

    /// Its client as a worker of `environment` builds it; nil when its URL is not set.
    public func client(_ environment: ServiceEnvironment, caller: ServiceCaller) throws(ServiceError) -> (any AnalysisClient)? {
        guard let url = try environment.url(urlVariable) else { return nil }
        return try build(environment, url, caller)
    }
}

/// A client its service's configuration builds from a worker's environment.
protocol ConfiguredClient: AnalysisClient {
    associatedtype Configuration: ClientConfiguration
    init(configuration: Configuration, caller: ServiceCaller)
}

/// What a client reads from a worker's environment, checked when the worker starts.
protocol ClientConfiguration: Sendable {
    associatedtype Variable: ServiceVariable
    init(_ environment: ServiceEnvironment, url: String) throws(ServiceError)
}

/// The variables one service reads, each name written once: the registry lists them, the
/// service's configuration reads them, docs/services.md explains them (a test checks).
protocol ServiceVariable: RawRepresentable<String>, CaseIterable, Sendable, Equatable, VariableName {
    /// The variable whose presence turns the service on.
    static var url: Self { get }
}

extension ServiceVariable {
    var variableName: String { rawValue }
}

/// The five services, Image Discerner first (the primary one and every default).
public enum Services {
    public static let all = [discerner, ooto, azureFace, landmark, unissey]
    public static var names: [String] { all.map(\.name) }

    public static func named(_ name: String) -> RemoteService? { all.first { $0.name == name } }
}

extension String {
    /// A base URL without its trailing slash, so paths can be added with one.
    var withoutTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
