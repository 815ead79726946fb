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

/// Why an attempt failed: its kind (the registry's row, `FailureKind`) and the facts of this
/// attempt that `FailureDecision` weighs with the job's own.
public struct JobFailure: Error, Sendable, Equatable {
    public let kind: FailureKind
    /// What happened and what a person can do about it. Never holds a secret.
    public let message: String
    public let isRetryable: Bool
    /// The service asked us to wait at least this long (Retry-After).
    public let retryAfterSeconds: Double?
    /// False when the attempt failed through no fault of the job (the service could not start
    /// it at all): the attempt is given back instead of using up one of the job's.
    public let countsAsAttempt: Bool
    /// The service (or the system) failed on the job's last attempt: it is given back, each
    /// hand-back waiting twice as long as the one before (`FailureDecision`), so a trickle of
    /// jobs the breaker never sees outlives an outage of an hour instead of four minutes.
    public let lastAttemptOfOutage: Bool

    /// - Parameters:
    ///   - retryable: tried again or not as the kind's row says, unless given (a truncated
    ///     file's one more try).
    ///   - countsAsAttempt: as the kind's row says (its attempt is "not counted" or not), unless given.
    public init(
        _ kind: FailureKind, message: String, retryable: Bool? = nil, retryAfterSeconds: Double? = nil, countsAsAttempt: Bool? = nil,
        lastAttemptOfOutage: Bool = false
    ) {
        self.kind = kind
        self.message = message
        self.isRetryable = retryable ?? (kind.retry != .never)
        self.retryAfterSeconds = retryAfterSeconds
        self.countsAsAttempt = countsAsAttempt ?? (kind.attempt != .notCounted)
        self.lastAttemptOfOutage = lastAttemptOfOutage
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
