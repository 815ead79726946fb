import Logging
import ServiceLifecycle
import Synchronization

/// Says which of a worker's services outlive their cancellation, and ends the process if any
/// does. ServiceGroup's own bound (`maximumCancellationDuration`) ends it with one anonymous
/// line, which leaves nothing to go on: a worker stuck on its way out must name what holds it.
/// Each service is wrapped (`watched`); the first cancellation starts the clock; past `bound`,
/// the services still running and the jobs still in hand are logged, then the process ends, as
/// it would have (a supervisor starts a fresh worker; the rescue takes the jobs back).
final class ServiceWatch: Sendable {
    private struct State {
        var running: [String] = []
        var cancelled = false
    }

    private let state = Mutex(State())
    private let bound: Duration
    private let inFlight: InFlight
    private let logger: Logger

    init(bound: Duration, inFlight: InFlight, logger: Logger) {
        self.bound = bound
        self.inFlight = inFlight
        self.logger = logger
    }

    /// `configuration` with its service watched.
    func watched(_ configuration: ServiceGroupConfiguration.ServiceConfiguration) -> ServiceGroupConfiguration.ServiceConfiguration {
        var watched = configuration
        watched.service = Watched(service: configuration.service, name: "\(type(of: configuration.service))", watch: self)
        return watched
    }

    fileprivate func started(_ name: String) {
        state.withLock { $0.running.append(name) }
    }

    fileprivate func ended(_ name: String) {
        state.withLock { state in
            if let index = state.running.firstIndex(of: name) { state.running.remove(at: index) }
        }
    }

    fileprivate func cancelled() {
        let first = state.withLock { state in
            defer { state.cancelled = true }
            return !state.cancelled
        }
        guard first else { return }
        // Unstructured and detached: the cancellation that started it must not end its wait.
        Task.detached { [self] in
            try? await Task.sleep(for: bound)
            let still = state.withLock { $0.running }
            guard !still.isEmpty else { return }
            let counts = await inFlight.counts
            let line =
                "worker services still running \(bound) after they were cancelled: \(still.joined(separator: ", ")); "
                + "jobs in hand: \(counts.total) (\(counts.preparing) preparing); ending the process"
            logger.critical("\(line)")
            fatalError(line)
        }
    }
}

/// A service that tells its watch when it starts, ends, and is cancelled.
private struct Watched: Service, CustomStringConvertible {
    let service: any Service
    let name: String
    let watch: ServiceWatch
    var description: String { name }

    func run() async throws {
        watch.started(name)
        defer { watch.ended(name) }
        try await withTaskCancellationHandler {
            try await service.run()
        } onCancel: {
            watch.cancelled()
        }
    }
}
