import ArgumentParser
import Foundation
import Logging
import Simulator

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Serve local simulators of the five analysis services, with fault injection.",
        discussion: """
            Image Discerner (with its S3 upload) at the root, OOTO at /ooto/api/v1.0, Azure Face at /azure,
            the landmark predictor at /landmark, Unissey at /unissey. Credentials the simulator accepts:
            OOTO sim-ooto-app / sim-ooto-key, Azure sim-azure-face-key, Unissey sim-unissey-key.
            The simulated services are at least as strict as the real ones: Image Discerner starts one analysis
            per second (a second start in the same second fails with ExecutionAlreadyExists), refuses images
            over the vision request limit and more than 100 upload-url / 50 analyze calls a minute; Azure Face
            takes 20 calls a minute. GET /_sim/stats shows calls per service, faults injected, refusals and
            Retry-After violations.
            The S3 endpoint signs with a secret made at start, or $DISCERN_SIM_SECRET_ACCESS_KEY: set it to restart the
            simulator (an outage drill) without refusing the upload URLs it handed out before, as S3 does not.
            """)

    @OptionGroup var logging: LogOptions

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Write the base URL to this file once listening (for scripts).")
    var urlFile: String?

    @Option(help: "Image Discerner response_format_version: 3.0 (the service's current code) or 2.0.")
    var discernerFormat: String = "3.0"

    @Flag(
        help:
            "Lift the services' throughput limits (one analysis start per second, per-minute limits): for load tests of discern itself, never to judge fidelity."
    )
    var noThroughputLimits = false

    @Flag(help: "OOTO answers in the older flat shape.")
    var ootoFlat = false

    @Option(help: "Median latency added to every API call, in milliseconds.")
    var latencyMs: Double = 0

    @Option(help: "Spread of that latency (sigma of a log-normal); 0 for a fixed latency.")
    var latencySpread: Double = 0

    @Option(help: "Seconds each Image Discerner analysis takes, as the service's workflow does (about 8 on average).")
    var analyzeSeconds: Double = 0

    @Flag(
        help:
            "Hold every Image Discerner analysis until POST /_sim/release-analyses (for tests: a job in flight at a moment the test chooses); GET /_sim/held-analyses lists the held ones."
    )
    var holdAnalyses = false

    @Option(help: "Share of API calls answered 500/502/503.")
    var errorRate: Double = 0

    @Option(help: "Share of API calls answered 429 with a wait.")
    var rateLimitRate: Double = 0

    @Option(help: "The wait a 429 asks for, in seconds.")
    var retryAfter: Int = 1

    @Option(help: "Share of API calls that hang, then answer 504.")
    var timeoutRate: Double = 0

    @Option(help: "How long a hanging call hangs, in seconds.")
    var hangSeconds: Double = 30

    @Option(help: "Share of API calls answered 200 with truncated JSON.")
    var malformedRate: Double = 0

    @Option(help: "Share of presigned upload URLs handed out already expired.")
    var expiredURLRate: Double = 0

    func validate() throws {
        for (name, rate) in [
            ("error", errorRate), ("rate-limit", rateLimitRate), ("timeout", timeoutRate),
            ("malformed", malformedRate), ("expired-url", expiredURLRate)
        ] where !(0...1).contains(rate) {
            throw ValidationError("--\(name)-rate must be between 0 and 1")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard (0...600).contains(analyzeSeconds) else { throw ValidationError("--analyze-seconds must be from 0 to 600") }
        guard (0...600_000).contains(latencyMs), (0...10).contains(latencySpread), (0...3600).contains(hangSeconds),
            (0...3600).contains(retryAfter)
        else {
            throw ValidationError("--latency-ms (0-600000), --latency-spread (0-10), --hang-seconds and --retry-after (0-3600) are out of range")
        }
        guard ["2.0", "3.0"].contains(discernerFormat) else { throw ValidationError("--discerner-format must be 2.0 or 3.0") }
    }

    func run() async throws {
        let logger = logging.makeLogger("discern.simulator")
        var configuration = SimulatorConfiguration(host: host, port: port)
        if let secret = Setting.environment["DISCERN_SIM_SECRET_ACCESS_KEY"], !secret.isEmpty {
            configuration.secretAccessKey = secret
        }
        configuration.discernerResponseFormat = discernerFormat
        configuration.ootoFlatShape = ootoFlat
        configuration.throughputLimits = !noThroughputLimits
        configuration.faults.analyzeDelaySeconds = analyzeSeconds
        configuration.faults.holdAnalyses = holdAnalyses
        configuration.faults.latencyMedianSeconds = latencyMs / 1000
        configuration.faults.latencySpread = latencySpread
        configuration.faults.serverErrorRate = errorRate
        configuration.faults.rateLimitRate = rateLimitRate
        configuration.faults.retryAfterSeconds = retryAfter
        configuration.faults.timeoutRate = timeoutRate
        configuration.faults.hangSeconds = hangSeconds
        configuration.faults.malformedRate = malformedRate
        configuration.faults.expiredUploadURLRate = expiredURLRate
        let urlFile = self.urlFile
        try await SimulatorServer.run(configuration, logger: logger) { url in
            // Written unbuffered: scripts wait for this line.
            try? FileHandle.standardOutput.write(contentsOf: Data("simulator listening on \(url)\n".utf8))
            if let urlFile { try? Data((url + "\n").utf8).write(to: URL(fileURLWithPath: urlFile), options: .atomic) }
        }
    }
}
