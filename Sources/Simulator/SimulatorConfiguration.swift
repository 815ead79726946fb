import Foundation

/// How the local simulator of the analysis services runs.
public struct SimulatorConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; `RunningSimulator.baseURL` tells which.
    public var port: Int
    public var bucket: String
    public var region: String
    /// The key pair the simulated S3 signs and checks presigned URLs with. The default secret is
    /// random per start, so it never needs to be written anywhere.
    public var accessKeyID: String
    public var secretAccessKey: String
    public var presignExpirySeconds: Int
    /// Google Cloud Vision's request limit. Image Discerner sends the image base64-encoded in a
    /// JSON request, so an image over about 7.86 MB fails in its workflow.
    public var visionRequestLimit: Int
    /// Image Discerner's `response_format_version`: "3.0" (what its current code emits) or "2.0".
    public var discernerResponseFormat: String
    /// The provider Image Discerner's answers name, and the share of photos on which it
    /// disagrees with the baseline (`POST /_sim/discerner-provider` changes it while running).
    public var discernerProvider = DiscernerProvider()
    /// The limits the real services put on throughput, on by default: Image Discerner starts at
    /// most one analysis per second (a second start in the same second fails with
    /// ExecutionAlreadyExists) and takes 100 upload-url and 50 analyze calls a minute; Azure Face
    /// takes 20 calls a minute. Off only for tests of other things that need speed (chaos, fault
    /// runs); everything else stays as strict.
    public var throughputLimits: Bool
    public var credentials: Credentials
    /// OOTO answers in the current nested shape, or in the older flat one.
    public var ootoFlatShape: Bool
    /// Keep every Image Discerner analysis answer, by the caller's `X-Correlation-ID`, with the
    /// size of the image it was about (`SimulatorStats.answers`): for tests that compare what
    /// discern stored with what the service said. Off by default: it grows with every call.
    public var recordsAnswers = false
    /// Injected (at init) so tests can move time past a URL's expiry without sleeping.
    public let clock: @Sendable () -> Date
    /// Whether calls are timed by when their bytes reached this machine (`ArrivalStamp`): on the
    /// wall clock, yes; on a clock a test moves by hand, its own reading is the time.
    public let timesArrivals: Bool
    public var faults: Faults

    /// What the simulated services accept as credentials. Fixed, so scripts can pass them along.
    public struct Credentials: Sendable {
        public var ootoAppID = "sim-ooto-app"
        public var ootoAppKey = "sim-ooto-key"
        public var azureFaceKey = "sim-azure-face-key"
        public var unisseyAPIKey = "sim-unissey-key"
        public init() {}
    }

    /// Misbehaviour on purpose, so clients can be tested against it. Rates are shares of API
    /// calls (0...1), drawn independently per call, in this order: timeout, 5xx, 429, malformed.
    public struct Faults: Sendable {
        /// Share of upload URLs handed out already expired (signed as if issued long ago).
        public var expiredUploadURLRate: Double = 0
        /// Extra time /analyze takes, like the real service's workflow polling.
        public var analyzeDelaySeconds: Double = 0
        /// Latency added to every API call: log-normal around the median, `spread` its sigma.
        public var latencyMedianSeconds: Double = 0
        public var latencySpread: Double = 0
        public var serverErrorRate: Double = 0
        public var rateLimitRate: Double = 0
        /// The wait a 429 asks for (as `Retry-After`, or in Azure's message).
        public var retryAfterSeconds: Int = 1
        /// Share of calls that hang for `hangSeconds` and then answer 504, as a gateway would.
        public var timeoutRate: Double = 0
        public var hangSeconds: Double = 30
        /// Share of calls answered 200 with a truncated JSON body.
        public var malformedRate: Double = 0
        /// Every Image Discerner analysis waits, after its delay, until `POST /_sim/release-analyses`
        /// (`AnalysisHold`): for tests that need a job in flight at a moment of their choosing.
        public var holdAnalyses = false
        /// The analyses of these jobs (`X-Correlation-ID`, `discern-job-<id>`) wait the same way
        /// whatever `holdAnalyses` says: a job that stays in flight until its worker is killed.
        public var heldJobs: Set<String> = []

        public init() {}
    }

    public init(
        host: String = "127.0.0.1", port: Int = 0, bucket: String = "discern-sim",
        region: String = "us-east-1", accessKeyID: String = "AKIADISCERNSIMULATOR",
        secretAccessKey: String = SimulatorConfiguration.randomSecret(),
        presignExpirySeconds: Int = 900, visionRequestLimit: Int = 10_485_760,
        clock: (@Sendable () -> Date)? = nil
    ) {
        self.host = host
        self.port = port
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.presignExpirySeconds = presignExpirySeconds
        self.visionRequestLimit = visionRequestLimit
        self.discernerResponseFormat = "3.0"
        self.throughputLimits = true
        self.credentials = Credentials()
        self.ootoFlatShape = false
        self.clock = clock ?? { Date() }
        self.timesArrivals = clock == nil
        self.faults = Faults()
    }

    public static func randomSecret() -> String {
        (0..<40).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement()! }
            .map(String.init).joined()
    }
}
