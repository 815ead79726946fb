import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Says which of a worker's services outlive their cancellation, and ends the process if any
/// does. ServiceGroup's own bound (`maximumCancellationDuration`) ends it with one anonymous
/// line, which leaves nothing to go on: a worker stuck on its way out must name what holds it.
/// Each service is wrapped (`watched`); the first cancellation starts the clock; past `bound`,
/// the services still running and the jobs still in hand are logged, then the process ends, as
/// it would have (a supervisor starts a fresh worker; the rescue takes the jobs back), with status 70.
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
            guard await !endedWithin(bound) else { return }
            let still = state.withLock { $0.running }
            let counts = await inFlight.counts
            let line =
                "worker services still running \(bound) after they were cancelled: \(still.joined(separator: ", ")); "
                + "jobs in hand: \(counts.total) (\(counts.preparing) preparing); ending the process"
            logger.critical("\(line)")
            // Ended on purpose, not crashed: no crash report (symbolicating one took a loaded CI
            // machine a minute) and no exit handlers racing the threads still at work.
            fflush(nil)
            _exit(Self.stuckExitStatus)
        }
    }

    /// Whether every service ended within `bound` of time the process had to end in: each second
    /// waited counts at most two, so a machine that stalled the whole process (a loaded host, a
    /// suspended VM) does not end a worker that was never given the time to stop.
    private func endedWithin(_ bound: Duration) async -> Bool {
        var waited = Duration.zero
        while waited < bound {
            let start = ContinuousClock.now
            try? await Task.sleep(for: .seconds(1))
            waited += min(ContinuousClock.now - start, .seconds(2))
            if state.withLock({ $0.running.isEmpty }) { return true }
        }
        return false
    }

    /// The exit status of a worker that outlived its cancellation: EX_SOFTWARE.
    static let stuckExitStatus: Int32 = 70
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
