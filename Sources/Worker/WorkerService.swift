import Logging
import ServiceLifecycle

/// A worker as a swift-service-lifecycle service: a graceful shutdown (SIGTERM, SIGINT) stops
/// claiming and lets jobs in flight finish within the grace period.
public struct WorkerService: Service {
    private let worker: Worker
    private let onFinish: @Sendable (WorkerSummary) -> Void

    public init(_ worker: Worker, onFinish: @escaping @Sendable (WorkerSummary) -> Void) {
        self.worker = worker
        self.onFinish = onFinish
    }

    public func run() async throws {
        let worker = self.worker
        let summary = try await withGracefulShutdownHandler {
            try await worker.run()
        } onGracefulShutdown: {
            worker.stop()
        }
        onFinish(summary)
    }
}
