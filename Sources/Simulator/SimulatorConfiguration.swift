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
    /// What `/analyze` accepts: the service's documented 10 MB.
    public var maxAnalyzeBytes: Int
    /// Injected so tests can move time past a URL's expiry without sleeping.
    public var clock: @Sendable () -> Date
    public var faults: Faults

    /// Misbehaviour on purpose, so clients can be tested against it.
    public struct Faults: Sendable {
        /// Share of upload URLs handed out already expired (signed as if issued long ago).
        public var expiredUploadURLRate: Double = 0
        /// Extra time /analyze takes, like the real service's workflow polling.
        public var analyzeDelaySeconds: Double = 0

        public init() {}
    }

    public init(host: String = "127.0.0.1", port: Int = 0, bucket: String = "discern-sim",
                region: String = "us-east-1", accessKeyID: String = "AKIADISCERNSIMULATOR",
                secretAccessKey: String = SimulatorConfiguration.randomSecret(),
                presignExpirySeconds: Int = 900, maxAnalyzeBytes: Int = 10 * 1024 * 1024,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.host = host
        self.port = port
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.presignExpirySeconds = presignExpirySeconds
        self.maxAnalyzeBytes = maxAnalyzeBytes
        self.clock = clock
        self.faults = Faults()
    }

    public static func randomSecret() -> String {
        (0..<40).map { _ in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement()! }
            .map(String.init).joined()
    }
}
