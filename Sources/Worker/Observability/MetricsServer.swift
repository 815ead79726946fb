import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus

/// Serves the process's metrics in Prometheus' text format at `/metrics` (and `/healthz`).
public enum MetricsServer {
    /// Bootstraps swift-metrics with a Prometheus registry; call once per process.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Stage latencies span milliseconds (claims) to minutes (an analysis).
        factory.defaultDurationHistogramBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300].map { .milliseconds(Int64($0 * 1000)) }
        MetricsSystem.bootstrap(factory)
        return registry
    }

    public static func application(_ registry: PrometheusCollectorRegistry, host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("/healthz") { _, _ in "ok\n" }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "discern-metrics"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.notice("metrics at http://\(host):\(bound)/metrics", metadata: ["metrics_port": "\(bound)"])
            },
            logger: logger)
    }
}
