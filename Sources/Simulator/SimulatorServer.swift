import DedicatedThreads
import Foundation
import Hummingbird
import Imaging
import Logging
import NIOCore
import UnixSignals
import Synchronization

/// The local stand-in for the remote analysis services, over real HTTP.
public enum SimulatorServer {
    /// Runs the simulator for as long as `body` runs, in a child task, and stops it however
    /// `body` ends. `body` starts once the server accepts connections; a server that cannot
    /// start (a port taken) throws its error instead of leaving the caller waiting.
    public static func withRunning<T>(_ configuration: SimulatorConfiguration = .init(),
                                      logger: Logger = Logger(label: "discern.simulator"),
                                      _ body: (RunningSimulator) async throws -> T) async throws -> T {
        let ready = AsyncStream<Int>.makeStream()
        let stats = SimulatorStats(), scripted = ScriptedReplies()
        let application = makeApplication(configuration, stats: stats, scripted: scripted, logger: logger) { port in
            ready.continuation.yield(port)
            ready.continuation.finish()
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { ready.continuation.finish() }
                try await application.runService()
            }
            var iterator = ready.stream.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw CancellationError()
            }
            defer { group.cancelAll() }
            return try await body(RunningSimulator(baseURL: "http://\(configuration.host):\(port)", stats: stats, scripted: scripted))
        }
    }

    /// Runs in the foreground until SIGINT or SIGTERM (`discern simulate`).
    public static func run(_ configuration: SimulatorConfiguration, logger: Logger, onReady: @escaping @Sendable (String) -> Void) async throws {
        let application = makeApplication(configuration, stats: SimulatorStats(), scripted: ScriptedReplies(), logger: logger) { port in
            onReady("http://\(configuration.host):\(port)")
        }
        try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    private static func makeApplication(_ configuration: SimulatorConfiguration, stats: SimulatorStats, scripted: ScriptedReplies,
                                        logger: Logger, onPort: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        let baseURL = BaseURL()
        let router = Router()
        let decoder = ThreadPool(name: "discern-sim-decode", threads: 2, onThreadExit: Vips.threadShutdown)
        let faults = FaultInjector(configuration: configuration, stats: stats, scripted: scripted)
        DiscernerRoutes(configuration: configuration, store: ObjectStore(), baseURL: { baseURL.value }, decoder: decoder, faults: faults)
            .register(on: router)
        OOTORoutes(configuration: configuration, faults: faults, decoder: decoder).register(on: router)
        AzureFaceRoutes(configuration: configuration, faults: faults, decoder: decoder).register(on: router)
        LandmarkRoutes(configuration: configuration, faults: faults, decoder: decoder).register(on: router)
        UnisseyRoutes(configuration: configuration, faults: faults).register(on: router)
        router.get("/_sim/stats") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: await stats.snapshotJSON())))
        }
        return Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [ArrivalStamp()])),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "discern-simulator"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                baseURL.set("http://\(configuration.host):\(port)")
                onPort(port)
            },
            logger: logger)
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
            "DISCERN_UNISSEY_URL": unisseyURL, "DISCERN_UNISSEY_API_KEY": credentials.unisseyAPIKey,
        ]
    }
}

/// The address the server really bound to, known only once it runs (port 0 picks one).
private final class BaseURL: Sendable {
    private let url = Mutex("")
    var value: String { url.withLock { $0 } }
    func set(_ newValue: String) { url.withLock { $0 = newValue } }
}
