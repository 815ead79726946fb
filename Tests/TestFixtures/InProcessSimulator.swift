import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Simulator

/// The simulator in the test process: started for one test's body, with scripted replies.
/// `discern simulate` runs the same server (`SimulatorServer.run`); only the tests start it here.
extension SimulatorServer {
    /// Runs the simulator for as long as `body` runs, in a child task, and stops it however
    /// `body` ends. `body` starts once the server accepts connections; a server that cannot
    /// start (a port taken) throws its error instead of leaving the caller waiting.
    /// `eventLoopGroup`: NIO's shared one unless the test brings its own.
    public static func withRunning<T>(
        _ configuration: SimulatorConfiguration = .init(),
        eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: Logger = Logger(label: "discern.simulator"),
        _ body: (RunningSimulator) async throws -> T
    ) async throws -> T {
        let ready = AsyncStream<Int>.makeStream()
        let stats = SimulatorStats(), scripted = ScriptedReplies()
        let application = SimulatorServer.application(
            configuration, stats: stats, override: { await scripted.next($0) },
            eventLoopGroup: eventLoopGroup, logger: logger
        ) { port in
            ready.continuation.yield(port)
            ready.continuation.finish()
        }
        // Stopped gracefully, never by cancelling it: a server cancelled while a worker's upload
        // or answer is still streaming trips NIO's "writer deinited without finish()" and takes
        // the whole test process down (it did when PostgreSQL refused connections mid-test).
        let services = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { ready.continuation.finish() }
                // On threads of its own, as a service in another process would be (DedicatedExecutor).
                try await withTaskExecutorPreference(DedicatedExecutor.simulators) { try await services.run() }
            }
            var iterator = ready.stream.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw CancellationError()
            }
            let outcome: Result<T, any Error>
            do {
                outcome = .success(
                    try await body(RunningSimulator(baseURL: "http://\(configuration.host):\(port)", stats: stats, scripted: scripted)))
            } catch {
                outcome = .failure(error)
            }
            await services.triggerGracefulShutdown()
            // A request the simulator holds on purpose (a hang fault) is not waited for long.
            group.addTask {
                try await Task.sleep(for: .seconds(15))
                throw CancellationError()
            }
            _ = try? await group.next()
            group.cancelAll()
            return try outcome.get()
        }
    }
}

/// A simulator running in-process (`SimulatorServer.withRunning`).
public struct RunningSimulator: Sendable {
    public let baseURL: String
    /// What the services saw: calls, faults, Retry-After violations.
    public let stats: SimulatorStats
    /// Answers a test queues ahead of the simulated logic.
    public let scripted: ScriptedReplies

    /// Where each simulated service lives, as a worker's configuration wants it.
    public var discernerURL: String { baseURL }
    public var ootoURL: String { "\(baseURL)/ooto/api/v1.0" }
    public var azureFaceEndpoint: String { "\(baseURL)/azure" }
    public var landmarkURL: String { "\(baseURL)/landmark" }
    public var unisseyURL: String { "\(baseURL)/unissey" }

    /// The environment a `discern work` process needs to use every simulated service.
    public var workerEnvironment: [String: String] {
        let credentials = SimulatorConfiguration.Credentials()
        return [
            "DISCERN_DISCERNER_URL": discernerURL,
            "DISCERN_OOTO_URL": ootoURL, "DISCERN_OOTO_APP_ID": credentials.ootoAppID, "DISCERN_OOTO_APP_KEY": credentials.ootoAppKey,
            "DISCERN_AZURE_FACE_ENDPOINT": azureFaceEndpoint, "DISCERN_AZURE_FACE_KEY": credentials.azureFaceKey,
            "DISCERN_AZURE_FACE_PERSON_GROUP": "discern-sim",
            "DISCERN_LANDMARK_URL": landmarkURL,
            "DISCERN_UNISSEY_URL": unisseyURL, "DISCERN_UNISSEY_API_KEY": credentials.unisseyAPIKey
        ]
    }
}
