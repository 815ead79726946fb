import AnalysisModel
import Foundation
import JobQueue
import Postgres

// The queue benchmark: discern's claim + complete against raw SKIP LOCKED with pgbench, in the
// same run on the same cluster; idle enqueue-to-claim latency; claim latency with a small and a
// huge backlog; bulk enqueue. Prints Markdown for bench/RESULTS.md.
//   QueueBench CONNINFO [--workers 8] [--jobs 200000] [--backlog 5000000] [--bulk 1000000]
//              [--throughput-only [--write-cost]]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: QueueBench CONNINFO [--workers N] [--jobs N] [--backlog N] [--bulk N]\n".utf8))
    exit(2)
}
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}
let conninfo = arguments[1]
let workers = option("--workers", 8)
let jobCount = option("--jobs", 200_000)
let backlog = option("--backlog", 5_000_000)
let bulk = option("--bulk", 1_000_000)

let admin = Database(conninfo: conninfo, name: "bench-admin")
try await admin.withConnection { try Migrator.migrate($0) }

func reset() async throws {
    try await admin.withConnection { connection in
        try connection.execute("TRUNCATE discern.results, discern.jobs, discern.batches RESTART IDENTITY CASCADE")
    }
}

func seconds(_ start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// A no-op result: the smallest row a completion writes.
let noOp = JobResult(
    analysis: .init(rawResponseJSON: "{}"),
    preparation: .init(
        originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1,
        sentWidth: 1, sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0,
        passedThrough: true, milliseconds: 0),
    analyzeMilliseconds: 0)

/// Where the cluster's WAL and its transaction ids stand: read before and after a timed run, the
/// difference is what the run wrote (awa's headline measures: WAL bytes and commits per job).
/// Transactions that wrote anything take an id; `txid_current()` takes one itself, once per read.
struct WriteMark {
    let walBytes: Int
    let transactionID: Int

    init() async throws {
        (walBytes, transactionID) = try await admin.withConnection {
            try $0.rows("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, txid_current()", as: Int.self, Int.self)[0]
        }
    }

    /// (WAL bytes, writing transactions) per job since `self`, read at `end`.
    func perJob(to end: WriteMark, jobs: Int) -> (wal: Double, transactions: Double) {
        (Double(end.walBytes - walBytes) / Double(jobs), Double(end.transactionID - transactionID - 1) / Double(jobs))
    }
}

/// N workers, each on its own connection: claim `batch` jobs, complete them in one statement.
/// Jobs/s, and what each job wrote.
func noOpThroughput(batch: Int) async throws -> (rate: Double, wal: Double, transactions: Double) {
    try await reset()
    try await admin.withConnection { connection in
        try connection.execute(
            """
            INSERT INTO discern.jobs (image_path) SELECT '/bench/' || n || '.jpg' FROM generate_series(1, \(jobCount)) AS n
            """)
        try connection.execute("VACUUM ANALYZE discern.jobs")
    }
    let mark = try await WriteMark()
    let start = DispatchTime.now()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<workers {
            group.addTask {
                let database = Database(conninfo: conninfo, name: "bench-worker")
                let workerID = "bench-\(index)"
                while true {
                    let done = try await database.withConnection { connection -> Bool in
                        let jobs = try JobQueue.claim(connection, workerID: workerID, services: ["discerner"], limit: batch, leaseSeconds: 60)
                        if jobs.isEmpty { return true }
                        try JobQueue.complete(connection, workerID: workerID, results: jobs.map { ($0.id, noOp) })
                        return false
                    }
                    if done { return }
                }
            }
        }
        try await group.waitForAll()
    }
    let rate = Double(jobCount) / seconds(start)
    let cost = mark.perJob(to: try await WriteMark(), jobs: jobCount)
    return (rate, cost.wal, cost.transactions)
}

/// One job at a time into an idle queue; a LISTENing claimer takes it. Time from the INSERT's
/// commit to the claim's return.
func idleLatency(samples: Int) async throws -> (p50: Double, p99: Double) {
    try await reset()
    let claimer = Database(conninfo: conninfo, name: "bench-claimer")
    let woken = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let listener = NotificationListener(conninfo: conninfo, channel: "discern_jobs") { woken.continuation.yield() }
    var wake = woken.stream.makeAsyncIterator()
    _ = await wake.next()  // connected
    var latencies: [Double] = []
    for _ in 0..<samples {
        let start = DispatchTime.now()
        try await admin.withConnection { try $0.execute("INSERT INTO discern.jobs (image_path) VALUES ('/bench/one.jpg')") }
        var claimed = false
        while !claimed {
            _ = await wake.next()
            claimed = try await claimer.withConnection {
                !(try JobQueue.claim($0, workerID: "latency", services: ["discerner"], limit: 1, leaseSeconds: 60)).isEmpty
            }
        }
        latencies.append(seconds(start) * 1000)
        try await Task.sleep(for: .milliseconds(10))
    }
    await listener.stop()
    return (percentile(latencies, 0.5), percentile(latencies, 0.99))
}

/// Fills `database`'s queue up to `queued` claimable jobs.
func fill(_ database: Database, to queued: Int) async throws {
    try await database.withConnection { connection in
        let have = try connection.value("SELECT count(*) FROM discern.jobs WHERE state = 'available'", as: Int.self)
        if have < queued {
            try connection.execute(
                """
                INSERT INTO discern.jobs (image_path) SELECT '/bench/' || n || '.jpg' FROM generate_series(1, \(queued - have)) AS n
                """)
            try connection.execute("VACUUM ANALYZE discern.jobs")
        }
    }
}

/// Median time of a claim of 10 with a small and with a huge backlog. The small one lives in a
/// second database of the same cluster and the two are claimed from alternately, so both
/// medians see the same moments of this shared machine's load.
func claimLatencies(small: Int, large: Int) async throws -> (small: Double, large: Double) {
    let smallName = "discern_bench_small"
    // A fixed name of ours, never input: CREATE DATABASE takes no parameters.
    try await admin.withConnection { connection in
        try connection.execute("DROP DATABASE IF EXISTS \(unescaped: smallName) WITH (FORCE)")
        try connection.execute("CREATE DATABASE \(unescaped: smallName)")
    }
    var components = URLComponents(string: conninfo)
    components?.path = "/" + smallName
    guard let smallURL = components?.string else { throw CocoaError(.fileReadInvalidFileName) }
    let smallDatabase = Database(conninfo: smallURL, name: "bench-claimer-small")
    try await smallDatabase.withConnection { try Migrator.migrate($0) }
    let largeDatabase = Database(conninfo: conninfo, name: "bench-claimer")
    try await fill(smallDatabase, to: small)
    try await fill(largeDatabase, to: large)

    func timedClaim(_ database: Database) async throws -> Double {
        let start = DispatchTime.now()
        _ = try await database.withConnection { try JobQueue.claim($0, workerID: "probe", services: ["discerner"], limit: 10, leaseSeconds: 60) }
        return seconds(start) * 1000
    }
    var smallTimes: [Double] = [], largeTimes: [Double] = []
    for round in 0..<400 {
        if round % 2 == 0 {
            smallTimes.append(try await timedClaim(smallDatabase))
            largeTimes.append(try await timedClaim(largeDatabase))
        } else {
            largeTimes.append(try await timedClaim(largeDatabase))
            smallTimes.append(try await timedClaim(smallDatabase))
        }
    }
    // Left behind only if a claim failed; the next run drops it first.
    try await admin.withConnection { try $0.execute("DROP DATABASE IF EXISTS \(unescaped: smallName) WITH (FORCE)") }
    return (percentile(smallTimes, 0.5), percentile(largeTimes, 0.5))
}

func bulkEnqueue() async throws -> Double {
    try await reset()
    let paths = (0..<bulk).map { "/photos/2026-11-22/camera-\($0 % 97)/IMG_\($0).jpg" }
    let start = DispatchTime.now()
    _ = try await admin.withConnection { try JobQueue.enqueue($0, files: paths.map { EnqueuedFile(path: $0) }, service: "discerner", batch: "bulk") }
    return seconds(start)
}

if arguments.contains("--throughput-only") {
    let run = try await noOpThroughput(batch: 100)
    print("discern_batch100_jobs_per_s=\(Int(run.rate))")
    // Only when asked: bench/queue/ab.py reads the one line above, from builds without these too.
    if arguments.contains("--write-cost") {
        print("wal_bytes_per_job=\(String(format: "%.0f", run.wal))")
        print("transactions_per_job=\(String(format: "%.4f", run.transactions))")
    }
    exit(0)
}
let batched = try await noOpThroughput(batch: 100).rate
let single = try await noOpThroughput(batch: 1).rate
let latency = try await idleLatency(samples: 300)
try await reset()
let (small, large) = try await claimLatencies(small: 10_000, large: backlog)
let bulkSeconds = try await bulkEnqueue()
try await reset()

print(
    """
    discern_batch100_jobs_per_s=\(Int(batched))
    discern_batch1_jobs_per_s=\(Int(single))
    idle_latency_p50_ms=\(String(format: "%.2f", latency.p50))
    idle_latency_p99_ms=\(String(format: "%.2f", latency.p99))
    claim_ms_10k=\(String(format: "%.3f", small))
    claim_ms_backlog=\(String(format: "%.3f", large))
    backlog=\(backlog)
    bulk_enqueue_s=\(String(format: "%.1f", bulkSeconds))
    bulk=\(bulk)
    """)
