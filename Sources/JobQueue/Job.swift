import ErrorCodes
import Postgres
import SQLSchema

/// A claimed job, as a worker sees it.
public struct Job: Sendable, Equatable {
    public let id: Int
    public let batchID: Int?
    public let service: String
    public let action: String
    public let imagePath: String
    /// Per-job parameters, as the JSON text stored in `jobs.params`.
    public let paramsJSON: String
    /// This attempt's number, starting at 1.
    public let attempt: Int
    public let maxAttempts: Int
    /// Its workers stopped while it ran beside other jobs often enough that it may be what
    /// crashes them: the worker runs it alone, claiming nothing else meanwhile.
    public let runsAlone: Bool
    /// Claimed as the probe of a service found unavailable (discern.service_breakers): one try,
    /// whose answer closes the service's breaker or keeps it open.
    public let isProbe: Bool

    /// A first attempt as a claim returns it: for tests of what holds jobs.
    package init(id: Int, service: String = "discerner", imagePath: String = "/photos/a.jpg", runsAlone: Bool = false) {
        self.id = id
        batchID = nil
        self.service = service
        action = "analyze"
        self.imagePath = imagePath
        paramsJSON = "{}"
        attempt = 1
        maxAttempts = 5
        self.runsAlone = runsAlone
        isProbe = false
    }

    /// A one-off piece of work outside the queue (a trial's photo): a first and only attempt.
    package init(id: Int, service: String, action: String, imagePath: String, paramsJSON: String) {
        self.id = id
        batchID = nil
        self.service = service
        self.action = action
        self.imagePath = imagePath
        self.paramsJSON = paramsJSON
        attempt = 1
        maxAttempts = 1
        runsAlone = false
        isProbe = false
    }

    init(claimed row: Queries.Jobs.Claim.Output) {
        id = row.id
        batchID = row.batchId
        service = row.service
        action = row.action
        imagePath = row.imagePath
        paramsJSON = row.params
        attempt = row.attempts
        maxAttempts = row.maxAttempts
        runsAlone = row.alone
        isProbe = row.probe
    }
}

/// Why an attempt failed: its kind (the registry's row, `FailureKind`), what happened, and what
/// the worker learnt of the service around it. What the failure costs is `FailureDecision`'s to
/// say, from these and the job's own facts: nothing here decides it.
public struct JobFailure: Error, Sendable, Equatable {
    public let kind: FailureKind
    /// What happened and what a person can do about it. Never holds a secret.
    public let message: String
    /// The wait asked for before another attempt: the service's Retry-After, or the wait a
    /// setting gives the kind (a truncated file's one more try).
    public let retryAfterSeconds: Double?
    /// What the worker's breaker found of the service while this failure was its to judge.
    public let outage: Outage

    /// What the breaker makes of a failure it counts (docs/design.md, "What a failure costs").
    public enum Outage: Sendable, Equatable {
        /// Nothing: the kind's row decides alone.
        case none
        /// The failure is the service's, though the breaker has not tripped: on the job's last
        /// attempt it is taken for an outage's (a trickle of jobs reaches the trip slowly).
        case serviceFailing
        /// The photo failed as the service's probe again and again, each time after every other
        /// waiting photo was tried: an outage's, on whichever attempt; `why` says so.
        case probeFailed(why: String)
    }

    public init(_ kind: FailureKind, message: String, retryAfterSeconds: Double? = nil, outage: Outage = .none) {
        self.kind = kind
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.outage = outage
    }

    /// The same failure, as the breaker judged it.
    public func judged(_ outage: Outage) -> JobFailure {
        JobFailure(kind, message: message, retryAfterSeconds: retryAfterSeconds, outage: outage)
    }
}

/// Where a failed job went.
public enum FailureOutcome: String, Sendable {
    case retryScheduled = "available"
    case dead = "dead"
    /// The lease was no longer ours (rescued or cancelled meanwhile): nothing was changed.
    case leaseLost = "lease_lost"
}

/// A file to enqueue, with the key that makes it unique (content hash + service + action).
public struct EnqueuedFile: Sendable, Equatable {
    public let path: String
    public let uniqueKey: String?
    /// How the photo looks in 64 bits (Imaging's PerceptualHash), when asked for.
    public var perceptualHash: Int64?
    /// The photo enqueued before it that it nearly duplicates: it then waits behind every other job.
    public var nearDuplicateOf: String?
    /// The W3C traceparent of its enqueue's span, while tracing is on (docs/tracing.md).
    public var traceparent: String?

    public init(path: String, uniqueKey: String? = nil, perceptualHash: Int64? = nil, nearDuplicateOf: String? = nil) {
        self.path = path
        self.uniqueKey = uniqueKey
        self.perceptualHash = perceptualHash
        self.nearDuplicateOf = nearDuplicateOf
    }
}
