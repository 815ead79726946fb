import DedicatedThreads
import Foundation
import Hummingbird
import CVipsSimulatorShim
import Logging
import NIOCore
import UnixSignals
import Synchronization

/// The local stand-in for the remote analysis services, over real HTTP.
public enum SimulatorServer {
    /// Runs in the foreground until SIGINT or SIGTERM (`discern simulate`).
    public static func run(_ configuration: SimulatorConfiguration, logger: Logger, onReady: @escaping @Sendable (String) -> Void) async throws {
        let application = application(configuration, stats: SimulatorStats(), override: nil, logger: logger) { port in
            onReady("http://\(configuration.host):\(port)")
        }
        try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// The server, for `run` and for the tests' in-process simulator: `override` may answer a
    /// route ahead of the simulated logic (the tests' scripted replies); `onPort` hears the
    /// port it bound.
    /// `eventLoopGroup`: NIO's shared one unless a test brings its own (to hold its loop).
    package static func application(
        _ configuration: SimulatorConfiguration, stats: SimulatorStats, override: ReplyOverride?,
        eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: Logger, onPort: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let baseURL = BaseURL()
        let router = Router()
        let decoder = ThreadPool(name: "discern-sim-decode", threads: 2, onThreadExit: csimvips_thread_shutdown)
        let faults = FaultInjector(configuration: configuration, stats: stats, override: override)
        let hold = AnalysisHold(held: configuration.faults.holdAnalyses, jobs: configuration.faults.heldJobs)
        let provider = DiscernerProviderState(configuration.discernerProvider)
        DiscernerRoutes(
            configuration: configuration, store: ObjectStore(), baseURL: { baseURL.value }, decoder: decoder, faults: faults, hold: hold,
            provider: provider
        )
        .register(on: router)
        OOTORoutes(configuration: configuration, faults: faults, decoder: decoder).register(on: router)
        AzureFaceRoutes(configuration: configuration, faults: faults, decoder: decoder).register(on: router)
        LandmarkRoutes(configuration: configuration, faults: faults, decoder: decoder).register(on: router)
        UnisseyRoutes(configuration: configuration, faults: faults).register(on: router)
        router.post("/_sim/release-analyses") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "{\"released\": \(hold.release())}")))
        }
        // The provider Image Discerner answers as, from now on (a provider change mid-season).
        router.post("/_sim/discerner-provider") { request, _ in
            let body = try await request.body.collect(upTo: 4096)
            guard let now = provider.set(json: Data(body.readableBytesView)) else {
                return Response(
                    status: .badRequest, headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"error": "expected {\"name\": \"...\", \"disagreement\": 0...1}"}"#)))
            }
            let said = (try? JSONSerialization.data(withJSONObject: ["name": now.name, "disagreement": now.disagreement])) ?? Data("{}".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: said)))
        }
        router.get("/_sim/held-analyses") { _, _ in
            let held = (try? JSONSerialization.data(withJSONObject: ["held": hold.heldNow])) ?? Data("{}".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: held)))
        }
        router.get("/_sim/stats") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: await stats.snapshotJSON())))
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
            eventLoopGroupProvider: eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
    }
}

/// The address the server really bound to, known only once it runs (port 0 picks one).
private final class BaseURL: Sendable {
    private let url = Mutex("")
    var value: String { url.withLock { $0 } }
    func set(_ newValue: String) { url.withLock { $0 = newValue } }
}
