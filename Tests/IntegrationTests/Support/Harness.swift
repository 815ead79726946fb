import ServiceClients
import CurlHTTP
import Foundation
import JobQueue
import TestFixtures
import Logging
import Postgres
import Simulator
import Worker

/// A simulator started for one test and stopped after it, however it ends.
enum TestSimulator {
    @discardableResult
    static func with<T>(_ configuration: SimulatorConfiguration = .init(), _ body: (RunningSimulator) async throws -> T) async throws -> T {
        try await SimulatorServer.withRunning(configuration, logger: Logger(label: "test-sim") { _ in SwiftLogNoOpLogHandler() }, body)
    }
}

/// Runs a draining worker against a simulator, as `discern work --drain` does.
enum TestWorker {
    @discardableResult
    static func drain(
        _ conninfo: String, simulator: RunningSimulator, clients: [any AnalysisClient]? = nil,
        logger: Logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
        configure: (inout WorkerConfiguration) -> Void = { _ in }
    ) async throws -> WorkerSummary {
        var configuration = WorkerConfiguration(
            pathRoots: try TestFolder.roots, concurrency: 4, prepareThreads: 2, pollIntervalSeconds: 0.1,
            drain: true, backoff: Backoff(baseSeconds: 0.05, maxSeconds: 0.2))
        configure(&configuration)
        // The shared rate limits in PostgreSQL, as `discern work` uses them.
        let gate = PostgresRateGate(conninfo: conninfo, logger: logger)
        let client = try discerner(simulator, caller: ServiceCaller(http: CurlHTTPClient(), gate: gate))
        let worker = WorkerRuntime(conninfo: conninfo, clients: clients ?? [client], configuration: configuration, logger: logger)
        // On threads of its own, as `discern work` in its own process would be (DedicatedExecutor).
        return try await withTaskExecutorPreference(DedicatedExecutor.workers) { try await worker.run() }
    }

    /// Image Discerner's backend for the simulator, built the way a worker builds it, with `caller`.
    static func discerner(_ simulator: RunningSimulator, caller: ServiceCaller) throws -> any AnalysisClient {
        let environment = ServiceEnvironment([Services.discerner.urlVariable: simulator.baseURL])
        guard let client = try Services.discerner.client(environment, caller: caller) else { throw TestSetupError("no Image Discerner client") }
        return client
    }
}

extension Database {
    /// Runs a test's own statement (`SQL`: values interpolated, sent as parameters) and says how
    /// many rows it changed.
    @discardableResult
    func execute(_ statement: SQL) async throws -> Int {
        try await withConnection { try $0.execute(statement) }
    }

    /// A test's own query, each row's columns read in order as `types`.
    func rows<each Value: PostgresDecodable>(_ statement: SQL, as types: repeat (each Value).Type) async throws -> [(repeat each Value)] {
        try await withConnection { try $0.rows(statement, as: repeat each types) }
    }

    /// A test's own query that answers one row of one column (a count, a state).
    func value<Value: PostgresDecodable>(_ statement: SQL, as type: Value.Type = Value.self) async throws -> Value {
        try await withConnection { try $0.value(statement, as: type) }
    }

    /// How many jobs hold `condition` (a test's own SQL, e.g. "state = 'succeeded'"); -1 when the
    /// database cannot say (it is away), which a wait then takes as "not yet".
    func jobCount(where condition: SQL) async -> Int {
        (try? await value("SELECT count(*) FROM discern.jobs WHERE \(condition)", as: Int.self)) ?? -1
    }
}

extension SimulatorConfiguration {
    /// Without the services' throughput limits (one Image Discerner start per second, per-minute
    /// limits): for tests of other things that run hundreds of jobs (chaos, fault runs), which
    /// also lift discern's own limits in `discern.rate_limits`. Everything else stays strict.
    static var unthrottled: SimulatorConfiguration {
        var configuration = SimulatorConfiguration()
        configuration.throughputLimits = false
        return configuration
    }
}

extension RunningSimulator {
    /// Lets the analyses a `holdAnalyses` simulator holds go on, and later ones through.
    func releaseAnalyses() async {
        guard let port = URLComponents(string: baseURL)?.port else { return }
        _ = await RawHTTP.post(port: port, path: "/_sim/release-analyses", body: "")
    }

    /// Whether the analysis of `job` is held now: it was prepared and waits on the service.
    func holdsAnalysis(of job: Int) async -> Bool {
        guard let port = URLComponents(string: baseURL)?.port else { return false }
        let answer = await RawHTTP.get(port: port, path: "/_sim/held-analyses")
        let held = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: [String]])?["held"] ?? []
        return held.contains("discern-job-\(job)")
    }
}
