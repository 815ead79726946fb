import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus

/// Serves the process's metrics in Prometheus' text format at `/metrics`, and the probes:
/// `/healthz` (live: the loops are turning) and `/readyz` (connected to PostgreSQL and serving),
/// 200 with "ok", else 503 with the reason (`Health`).
public enum MetricsServer {
    /// Bootstraps swift-metrics with a Prometheus registry; call once per process.
    public static func bootstrap(version: String) -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Stage latencies span milliseconds (claims) to minutes (an analysis).
        factory.defaultDurationHistogramBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300].map { .milliseconds(Int64($0 * 1000)) }
        MetricsSystem.bootstrap(factory)
        registry.makeGauge(name: "discern_build_info", labels: [("version", version)], help: MetricHelp.texts["discern_build_info"] ?? "").set(
            to: 1.0)
        return registry
    }

    public static func application(
        _ registry: PrometheusCollectorRegistry, health: Health?, host: String, port: Int,
        logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in
            let text = MetricHelp.annotate(String(decoding: registry.emitToBuffer(), as: UTF8.self))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("/healthz") { _, _ in probe(health?.livenessProblem()) }
        router.get("/readyz") { _, _ in probe(health?.readinessProblem()) }
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "discern-metrics"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.notice("metrics at http://\(host):\(bound)/metrics", metadata: ["metrics_port": "\(bound)"])
            },
            logger: logger)
    }

    private static func probe(_ problem: String?) -> Response {
        Response(
            status: problem == nil ? .ok : .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: (problem ?? "ok") + "\n")))
    }
}
