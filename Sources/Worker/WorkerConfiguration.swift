import ServiceClients
import Foundation
import JobQueue
import MediaFiles
import ObjectStorage

/// How one `discern work` process runs.
public struct WorkerConfiguration: Sendable {
    /// The folders job files may be read from (`DISCERN_PATH_ROOTS`); required.
    public var pathRoots: PathRoots
    /// Unique per process; written as the lease owner of the jobs it holds.
    public var workerID: String
    /// Reads `s3://` jobs' objects, from the buckets the path roots name; nil: none.
    public var objects: ObjectReader?
    /// Calls to services in flight at once (upload + analyze): hides network latency.
    public var concurrency: Int
    /// Threads for CPU-bound image preparation: the cores, by default.
    public var prepareThreads: Int
    /// Jobs claimed for preparation at once (in it or waiting for a thread), and also how many
    /// prepared jobs may wait for a network slot. Twice the threads keeps them busy across a
    /// claim's round trip without holding many leases idle; set, it is that number whatever the
    /// threads.
    public var prepareQueue: Int {
        get { max(1, prepareQueueGiven ?? 2 * prepareThreads) }
        set { prepareQueueGiven = newValue }
    }
    private var prepareQueueGiven: Int?
    /// Results written per completion statement, at most.
    public var completionBatchSize: Int
    /// Bytes of prepared images held at once, waiting for or in a call: bounds memory whatever
    /// the images' sizes (fewer calls go out at once when images are large).
    public var maxBytesInFlight: Int
    /// How long a claimed job is ours without a heartbeat. Short, so a crashed worker's jobs
    /// run again soon; the heartbeat renews it every `heartbeatSeconds`.
    public var leaseSeconds: Double
    /// How often the worker says it is alive and renews its leases: every 10 s, or a third of
    /// a shorter lease. Three missed beats and other workers hand its jobs back, however long
    /// the lease.
    public var heartbeatSeconds: Double { max(0.2, min(10, leaseSeconds / 3)) }
    /// How often to look for new work when the queue was empty.
    public var pollIntervalSeconds: Double
    /// Exit once nothing is left to do instead of waiting for new jobs.
    public var drain: Bool
    /// After `stop()`, how long jobs in flight may take before they are handed back.
    public var graceSeconds: Double
    public var backoff: Backoff
    /// How long a truncated file (maybe still being copied) waits before its one more try.
    public var truncatedRetrySeconds: Double = 300
    /// When a service counts as down, and how it is probed (`BreakerSettings`).
    public var breaker = BreakerSettings()
    /// Who hears that a batch is done (`WebhookSettings`): nobody by default, but every
    /// worker announces the batches that end.
    public var webhooks = WebhookSettings()
    /// Whether to sample the queue's depth for the metrics every 15 s: a count over the jobs
    /// table, worth it only when the metrics are served (`discern monitor` publishes it too,
    /// once for the whole cluster). A hundred workers sampling it would scan the table 7
    /// times a second.
    public var samplesQueueDepth = true

    /// The defaults are `discern work`'s (its flags say them from here).
    public init(
        pathRoots: PathRoots, workerID: String = WorkerConfiguration.defaultWorkerID(), concurrency: Int = 16,
        prepareThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
        prepareQueue: Int? = nil, completionBatchSize: Int = 100, maxBytesInFlight: Int = MemoryBudget.detect().megabytes << 20,
        leaseSeconds: Double = 30, pollIntervalSeconds: Double = 5, drain: Bool = false,
        graceSeconds: Double = 30, backoff: Backoff = Backoff()
    ) {
        self.pathRoots = pathRoots
        self.workerID = workerID
        self.concurrency = max(1, concurrency)
        self.prepareThreads = max(1, prepareThreads)
        self.prepareQueueGiven = prepareQueue
        self.completionBatchSize = max(1, completionBatchSize)
        self.maxBytesInFlight = max(1, maxBytesInFlight)
        self.leaseSeconds = leaseSeconds
        self.pollIntervalSeconds = pollIntervalSeconds
        self.drain = drain
        self.graceSeconds = graceSeconds
        self.backoff = backoff
    }

    /// The version the worker registers with (`discern.workers`).
    public var version = "dev"

    /// host:pid:random — readable in `discern status`, unique across restarts.
    public static func defaultWorkerID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        return "\(host):\(ProcessInfo.processInfo.processIdentifier):\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
    }
}

/// What one run of a worker did.
public struct WorkerSummary: Sendable, Equatable {
    public var succeeded = 0
    public var retryScheduled = 0
    public var dead = 0
    /// Finished after the lease was taken away: the work was discarded.
    public var leaseLost = 0
    /// Handed back unfinished when the worker stopped (attempt not counted).
    public var handedBack = 0
    /// Handed back after a wait because their service was unavailable (attempt not counted).
    public var handedBackLater = 0

    public init() {}
}
