import MediaFiles
import AnalysisModel
import ServiceClients
import Foundation
import Imaging
import JobQueue
import Logging
import Postgres
import TraceExport
import UnixSignals
import Worker

// bench/scale's two roles (bench/scale/run.py starts them):
//   ScaleBench seed CONNINFO JOBS PER_MINUTE   migrate, empty the queue, enqueue JOBS no-op jobs,
//                                              set the no-op rate limit
//   ScaleBench enqueue CONNINFO JOBS           add JOBS no-op jobs beside what is there (bench/results:
//                                              a drain on the 20-million-row database)
//   ScaleBench work CONNINFO CONCURRENCY       one worker, the real runtime (producer, executor,
//                                              completer, heartbeat, rescuer; three connections),
//                                              draining with a backend that only takes a
//                                              rate-limit slot and answers
//   ScaleBench serve CONNINFO CONCURRENCY      the same worker, not draining: it waits for jobs
//                                              until SIGTERM (bench/harness's replicas)
// A worker prints `calls=N` (slots taken) and `runtime_seconds` (the runtime's own run, from before it
// connects to its exit) when it has drained. SCALE_BACKEND names the backend
// the no-op jobs and the worker use (default discerner). For bench/harness: JOB_WORK_MS is
// synthetic work per job (a sleep), JOB_FAIL=1 fails every job for good (the dead-letter phase);
// each answer records when the job started (`started`, epoch seconds), so pickup latency
// (insert to start) can be read from the results, and, under the public harness
// (bench/field-harness), the replica that ran it (`instance`, from BENCH_INSTANCE_ID), so each
// replica reports its own completions.

/// Reads no file, calls nothing: what is left is the queue, the runtime and the rate limiter.
struct NoOpClient: AnalysisClient {
    static let rateKey = "scale:noop"
    static let serviceName = ProcessInfo.processInfo.environment["SCALE_SERVICE"] ?? "discerner"
    let name = NoOpClient.serviceName
    let gate: PostgresRateGate
    let calls = Counter()
    let workMilliseconds = Int(ProcessInfo.processInfo.environment["JOB_WORK_MS"] ?? "") ?? 0
    let failsEveryJob = ProcessInfo.processInfo.environment["JOB_FAIL"] == "1"
    let instance = Int(ProcessInfo.processInfo.environment["BENCH_INSTANCE_ID"] ?? "") ?? 0

    func input(for action: String) -> InputHandling { .none }

    func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis {
        let started = Date().timeIntervalSince1970
        _ = try await gate.acquire(Self.rateKey)
        calls.increment()
        if workMilliseconds > 0 { try? await Task.sleep(for: .milliseconds(workMilliseconds)) }
        if failsEveryJob { throw ServiceError(.inputRejected, "bench/harness: this job fails for good") }
        return Analysis(category: "noop", rawResponseJSON: "{\"started\":\(started),\"instance\":\(instance)}")
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

func enqueueNoOpJobs(_ connection: Connection, count: Int, perMinute: Double) throws {
    let paths = (0..<count).map { "/noop/\($0)" }
    for chunk in stride(from: 0, to: paths.count, by: 100_000) {
        try JobQueue.enqueue(
            connection, files: paths[chunk..<min(chunk + 100_000, paths.count)].map { EnqueuedFile(path: $0) },
            service: NoOpClient.serviceName, batch: "scale")
    }
    try connection.execute(
        """
        INSERT INTO discern.rate_limits (key, per_minute, burst) VALUES (\(NoOpClient.rateKey), \(perMinute), 1)
        ON CONFLICT (key) DO UPDATE SET per_minute = excluded.per_minute, burst = 1, next_at = now()
        """)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let number = Int(arguments[3]) else {
    FileHandle.standardError.write(
        Data("usage: ScaleBench seed CONNINFO JOBS PER_MINUTE | ScaleBench enqueue CONNINFO JOBS | ScaleBench work|serve CONNINFO CONCURRENCY\n".utf8)
    )
    exit(2)
}
let conninfo = arguments[2]

switch arguments[1] {
case "seed":
    let perMinute = arguments.count > 4 ? Double(arguments[4]) ?? 6_000_000 : 6_000_000
    try await Database(conninfo: conninfo, name: "bench-seed").withConnection { connection in
        try Migrator.migrate(connection)
        try connection.execute("TRUNCATE discern.results, discern.jobs, discern.batches, discern.workers RESTART IDENTITY CASCADE")
        try enqueueNoOpJobs(connection, count: number, perMinute: perMinute)
        try connection.execute("SELECT pg_stat_reset()")
    }
case "enqueue":
    try await Database(conninfo: conninfo, name: "bench-enqueue").withConnection { connection in
        try enqueueNoOpJobs(connection, count: number, perMinute: 60_000_000)
    }
case "work", "serve":
    var logger = Logger(label: "scale")
    logger.logLevel = .warning
    let connections = WorkerConnections(conninfo: conninfo)
    let client = NoOpClient(gate: PostgresRateGate(database: connections.queue, logger: logger))
    let configuration = WorkerConfiguration(
        pathRoots: try PathRoots(["/tmp"]), concurrency: number, prepareThreads: 1,
        pollIntervalSeconds: 1, drain: arguments[1] == "work")
    let runtime = WorkerRuntime(connections: connections, clients: [client], configuration: configuration, logger: logger)
    // Traces as `discern` has them: on with OTEL_EXPORTER_OTLP_ENDPOINT (the A/B of tracing's
    // cost, bench/README.md), off otherwise.
    let traces = TraceExport.startIfWanted(ProcessInfo.processInfo.environment)
    // The runtime's own interval, from before it connects to after its last write and its
    // shutdown: what a peer's drain benchmark times (bench/peer), without process start-up.
    let started = ContinuousClock.now
    let summary = try await runtime.run(gracefulShutdownSignals: [.sigterm, .sigint])
    let seconds = (ContinuousClock.now - started) / .seconds(1)
    await traces?.finish()
    print(
        "calls=\(client.calls.value) succeeded=\(summary.succeeded) dead=\(summary.dead) lease_lost=\(summary.leaseLost) runtime_seconds=\(seconds)")
default:
    FileHandle.standardError.write(Data("unknown role \(arguments[1])\n".utf8))
    exit(2)
}
