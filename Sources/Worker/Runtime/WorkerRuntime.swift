import ServiceClients
import DedicatedThreads
import Foundation
import Imaging
import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle
import UnixSignals

/// A worker as services that talk one way: the **producer** claims jobs, the **executor** runs
/// each as a child task (prepare, then call its service), the **completer** writes what became
/// of them; beside them **presence** listens for new jobs and proves the worker alive, the
/// **heartbeat** keeps the worker registered and its leases renewed, the **rescuer** hands back
/// jobs of workers that stopped, a sampler feeds the metrics, and the **webhook dispatcher** tells people
/// a batch is done.
///
/// Run them in one `ServiceGroup` (`services`), in that order: graceful shutdown goes in
/// reverse, so claiming stops first, jobs in flight finish while their leases are still
/// renewed, the last outcomes are written, and the worker is marked stopped. When the grace
/// period (`ServiceGroupConfiguration.maximumGracefulShutdownDuration`) is over, the group
/// cancels: calls in flight are aborted, and the completer hands their jobs back.
public final class WorkerRuntime: Sendable {
    public let configuration: WorkerConfiguration
    /// What `/healthz` and `/readyz` answer.
    public let health: Health
    private let tally = OutcomeCounts()
    private let pool: ThreadPool
    private let parts: Parts
    private let watch: ServiceWatch

    private struct Parts: Sendable {
        let presence: Presence
        let completer: Completer
        let heartbeat: Heartbeat
        let executor: Executor
        let producer: Producer
        let rescuer: Rescuer
        let breakerWatch: BreakerWatch
        let sampler: DepthSampler
        let rollUp: RollUp
        let announcer: ChangeAnnouncer
        let webhooks: WebhookDispatcher
    }

    public convenience init(conninfo: String, clients: [any AnalysisClient], configuration: WorkerConfiguration, logger: Logger) {
        self.init(connections: WorkerConnections(conninfo: conninfo), clients: clients, configuration: configuration, logger: logger)
    }

    public init(connections: WorkerConnections, clients: [any AnalysisClient], configuration: WorkerConfiguration, logger: Logger) {
        self.configuration = configuration
        // Series an alert watches exist from the start, at zero: increase() needs a first sample.
        for reason in ["refused", "database"] { WorkerMetrics.resultWriteFailed(reason: reason, count: 0) }
        let health = Health(heartbeatSeconds: configuration.heartbeatSeconds)
        self.health = health
        let pool = ThreadPool(name: "discern-prepare", threads: configuration.prepareThreads, onThreadExit: Vips.threadShutdown)
        self.pool = pool
        let wakeup = Signal(), abandonments = Abandonments(), traces = JobTraces()
        let inFlight = InFlight { wakeup.signal() }
        watch = ServiceWatch(bound: Self.cancellationBound, inFlight: inFlight, logger: logger)
        let jobs = OneWayQueue<Job>(), outcomes = OneWayQueue<JobOutcome>()
        let names = Array(Set(clients.map(\.name))).sorted()
        let presence = Presence(
            listenConninfo: connections.listenConninfo,
            lock: SessionLock(namespace: WorkerRegistry.presenceNamespace), wakeup: wakeup)
        // The connection budget: see WorkerConnections.
        let queue = connections.queue, writes = connections.writes
        let breakers = ServiceBreakers(settings: configuration.breaker, database: queue, workerID: configuration.workerID, logger: logger)
        let execution = JobExecution(
            clients: Dictionary(clients.map { ($0.name, $0) }, uniquingKeysWith: { $1 }),
            preparation: FilePreparation(
                pool: pool, roots: configuration.pathRoots, objects: configuration.objects,
                truncatedRetrySeconds: configuration.truncatedRetrySeconds),
            networkSlots: WeightedSemaphore(configuration.concurrency), bytesInFlight: WeightedSemaphore(configuration.maxBytesInFlight),
            inFlight: inFlight,
            breakers: breakers, suspects: SuspectMarks(database: queue, workerID: configuration.workerID, logger: logger))
        let entry = WorkerRegistry.Entry(
            id: configuration.workerID, host: ProcessInfo.processInfo.hostName, pid: Int(ProcessInfo.processInfo.processIdentifier),
            version: configuration.version, services: names, heartbeatSeconds: configuration.heartbeatSeconds)
        parts = Parts(
            presence: presence,
            completer: Completer(
                inbox: outcomes,
                writer: OutcomeWriter(
                    database: writes, workerID: configuration.workerID,
                    backoff: configuration.backoff, logger: logger),
                inFlight: inFlight, tally: tally, traces: traces, maxBatch: configuration.completionBatchSize, release: configuration.version,
                logger: logger),
            heartbeat: Heartbeat(
                database: queue, entry: entry, presence: presence.listenConninfo == nil ? nil : presence.lock,
                leaseSeconds: configuration.leaseSeconds, inFlight: inFlight,
                abandonments: abandonments, health: health, tally: tally, logger: logger),
            executor: Executor(inbox: jobs, outbox: outcomes, execution: execution, abandonments: abandonments, traces: traces),
            producer: Producer(
                claims: queue, configuration: configuration, services: names, inFlight: inFlight, outbox: jobs,
                breakers: breakers, traces: traces, tally: tally, wakeup: wakeup, health: health, logger: logger),
            rescuer: Rescuer(
                database: queue, workerID: configuration.workerID, inFlight: inFlight, tally: tally,
                intervalSeconds: configuration.heartbeatSeconds, logger: logger),
            breakerWatch: BreakerWatch(breakers: breakers, services: names),
            sampler: DepthSampler(database: queue),
            rollUp: RollUp(database: writes, intervalSeconds: configuration.heartbeatSeconds, logger: logger),
            announcer: ChangeAnnouncer(database: writes, tally: tally),
            webhooks: WebhookDispatcher(
                database: writes, settings: configuration.webhooks, version: configuration.version,
                intervalSeconds: min(5, configuration.heartbeatSeconds), drain: configuration.drain, logger: logger))
        logger.info(
            "worker ready",
            metadata: [
                "worker": "\(configuration.workerID)", "services": "\(names.joined(separator: ","))",
                "concurrency": "\(configuration.concurrency)", "prepare_threads": "\(configuration.prepareThreads)",
                "lease_seconds": "\(configuration.leaseSeconds)", "drain": "\(configuration.drain)",
                "pool_mode": "\(connections.poolMode.rawValue)",
                "new_jobs": "\(connections.listenConninfo == nil ? "polled every \(configuration.pollIntervalSeconds) s" : "LISTEN")",
                "blocking_call_audit": "\(BlockingCallAudit.isEnabled ? "on" : "off")"
            ])
    }

    deinit { pool.shutdown() }

    /// How long the services may take to end once cancelled (the grace period over), before
    /// the process ends naming the ones still running (`ServiceWatch`).
    public static let cancellationBound: Duration = .seconds(30)

    /// The services, watched, in the order they belong in the group. With `drain`, the producer's end
    /// shuts the whole group down gracefully. Presence first, so it stops last: the worker is
    /// seen alive until it has let go of everything. The webhook dispatcher next: a drained worker
    /// announces its batches after the completer wrote their last outcomes.
    public var services: [ServiceGroupConfiguration.ServiceConfiguration] {
        [
            .init(service: parts.presence),
            .init(service: parts.webhooks),
            .init(service: parts.completer),
            .init(service: parts.heartbeat),
            .init(service: parts.executor),
            .init(service: parts.producer, successTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: parts.rescuer),
            .init(service: parts.breakerWatch),
            .init(service: parts.rollUp),
            .init(service: parts.announcer)
        ].map(watch.watched) + (configuration.samplesQueueDepth ? [watched(.init(service: parts.sampler))] : [])
    }

    /// `service` watched with the worker's own: one that outlives its cancellation is named
    /// (for services a command adds to the group, such as the metrics endpoint).
    public func watched(_ service: ServiceGroupConfiguration.ServiceConfiguration) -> ServiceGroupConfiguration.ServiceConfiguration {
        watch.watched(service)
    }

    /// What the worker has done so far; safe to read while it runs.
    public func summary() async -> WorkerSummary { await tally.summary }

    /// Runs the worker alone until it is done (`drain`) or shut down, and returns what it did:
    /// for tests and embedding. `discern work` builds its own group with these services.
    public func run(gracefulShutdownSignals: [UnixSignal] = []) async throws -> WorkerSummary {
        var group = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: gracefulShutdownSignals,
            logger: Logger(label: "discern.worker.group") { _ in SwiftLogNoOpLogHandler() })
        group.maximumGracefulShutdownDuration = .seconds(configuration.graceSeconds)
        // The watch bounds the cancellation, and names what outlives it.
        group.maximumCancellationDuration = nil
        try await ServiceGroup(configuration: group).run()
        return await summary()
    }
}
