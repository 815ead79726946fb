import DedicatedThreads
import Foundation
import Hummingbird
import Imaging
import Logging
import NIOCore
import UnixSignals

/// The local stand-in for the remote analysis services, over real HTTP.
public enum SimulatorServer {
    /// Starts the simulator in the background and returns once it accepts connections.
    public static func start(_ configuration: SimulatorConfiguration = .init(), logger: Logger = Logger(label: "discern.simulator")) async throws -> RunningSimulator {
        let ready = AsyncStream<Int>.makeStream()
        let application = makeApplication(configuration, logger: logger) { port in
            ready.continuation.yield(port)
            ready.continuation.finish()
        }
        let task = Task { try await application.runService() }
        var iterator = ready.stream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        return RunningSimulator(baseURL: "http://\(configuration.host):\(port)", task: task)
    }

    /// Runs in the foreground until SIGINT or SIGTERM (`discern simulate`).
    public static func run(_ configuration: SimulatorConfiguration, logger: Logger, onReady: @escaping @Sendable (String) -> Void) async throws {
        let application = makeApplication(configuration, logger: logger) { port in
            onReady("http://\(configuration.host):\(port)")
        }
        try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    private static func makeApplication(_ configuration: SimulatorConfiguration, logger: Logger,
                                        onPort: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        let baseURL = BaseURL()
        let router = Router()
        DiscernerRoutes(configuration: configuration, store: ObjectStore(), baseURL: { baseURL.value },
                        decoder: ThreadPool(name: "discern-sim-decode", threads: 2, onThreadExit: Vips.threadShutdown))
            .register(on: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "discern-simulator"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                baseURL.set("http://\(configuration.host):\(port)")
                onPort(port)
            },
            logger: logger)
    }
}

/// A simulator started with `SimulatorServer.start`.
public struct RunningSimulator: Sendable {
    public let baseURL: String
    let task: Task<Void, any Error>

    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// The address the server really bound to, known only once it runs (port 0 picks one).
private final class BaseURL: @unchecked Sendable {
    private let lock = NSLock()
    private var url = ""
    var value: String { lock.withLock { url } }
    func set(_ newValue: String) { lock.withLock { url = newValue } }
}
