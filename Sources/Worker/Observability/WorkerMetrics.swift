import Foundation
import Metrics
import Observability

/// The worker's metrics, through swift-metrics: whatever metrics backend the process bootstrapped
/// (`discern work --metrics-port` serves them in Prometheus' format); no-ops otherwise.
/// docs/operations.md lists them.
enum WorkerMetrics {
    private static func labels(_ service: String) -> [(String, String)] { MetricLabels.service(service) }

    static func jobsFinished(_ count: Int, service: String, outcome: String) {
        Counter(label: "discern_jobs_total", dimensions: labels(service) + [("outcome", outcome)]).increment(by: count)
    }

    static func failedAttempt(service: String, kind: String) {
        Counter(label: "discern_failed_attempts_total", dimensions: labels(service) + [("error_kind", kind)]).increment()
    }

    /// prepare, analyze, complete, claim.
    static func stage(_ stage: String, service: String, _ duration: Duration) {
        Metrics.Timer(label: "discern_stage_duration_seconds", dimensions: [("stage", stage)] + labels(service))
            .recordNanoseconds(Int64(min(max(duration.seconds, 0), 1e6) * 1e9))
    }

    static func inFlight(_ stage: String, _ count: Int) {
        Gauge(label: "discern_jobs_in_flight", dimensions: [("stage", stage)]).record(count)
    }

    static func bytes(service: String, read: Int, sent: Int) {
        Counter(label: "discern_bytes_total", dimensions: labels(service) + [("direction", "in")]).increment(by: read)
        Counter(label: "discern_bytes_total", dimensions: labels(service) + [("direction", "out")]).increment(by: sent)
    }

    static func apiCalls(service: String, _ count: Int) {
        Counter(label: "discern_api_calls_total", dimensions: labels(service)).increment(by: count)
    }

    static func queueDepth(service: String, state: String, _ jobs: Int) {
        Gauge(label: "discern_queue_depth", dimensions: labels(service) + [("state", state)]).record(jobs)
    }

    static func rateLimitWait(key: String, seconds: Double) {
        Metrics.Timer(label: "discern_rate_limit_wait_seconds", dimensions: [("key", key)])
            .recordNanoseconds(Int64(min(max(seconds, 0), 1e6) * 1e9))
    }

    /// 1 while this worker knows the service to be unavailable (its breaker open), else 0. The
    /// monitor exports the shared state, for every service (`discern_service_unavailable`).
    static func breakerOpen(service: String, _ open: Bool) {
        Gauge(label: "discern_breaker_open", dimensions: labels(service)).record(open ? 1 : 0)
    }

    /// reason: refused (PostgreSQL refused the data) or database (connection or server trouble).
    static func resultWriteFailed(reason: String, count: Int = 1) {
        Counter(label: "discern_result_write_failures_total", dimensions: [("reason", reason)]).increment(by: count)
    }
}
