@testable import ServiceClients
import CurlHTTP
import Foundation
import Logging
import SampleImages
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing
import Synchronization
import Worker

/// The token bucket in PostgreSQL holds a limit across separate worker processes.
@Suite("Shared rate limits", .integrationTimeLimit)
struct RateLimitTests {
    @Test("many calls refused at once with the same Retry-After push the schedule to it from now, not once each")
    func retryAfterDoesNotStack() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, name: "test-429")
            let limits: [(key: String, spacing: Double?)] = try await database.rows(
                "SELECT key, burst * 60 / per_minute AS spacing FROM discern.rate_limits ORDER BY key LIMIT 1", as: String.self, Double?.self
            )
            let row = try #require(limits.first)
            let key = row.key, spacing = row.spacing ?? 0
            for _ in 0..<50 {
                try await database.execute("SELECT discern.rate_limited(\(key), 10)")
            }
            let ahead =
                try #require(
                    try await database.rows(
                        "SELECT extract(epoch FROM next_at - clock_timestamp())::float8 AS s FROM discern.rate_limits WHERE key = \(key)",
                        as: Double?.self
                    ).first
                ) ?? -1
            // 10 s, plus a slot's spacing for each refused call; 50 x 10 s stacked would be 500 s more.
            #expect(ahead > 9 && ahead <= 10 + 50 * spacing + 1, "next_at is \(ahead) s ahead (spacing \(spacing) s)")
        }
    }

    /// A loaded worker wakes past its slots: counted as billed calls, missed slots would spend a
    /// cap with no job done.
    @Test("slots whose calls could not leave in time are not billed calls: a spend cap is not spent by them")
    func missedSlotsAreNotBilled() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, name: "test-missed")
            let key = try #require(try await database.rows("SELECT key FROM discern.rate_limits ORDER BY key LIMIT 1", as: String.self).first)
            let service = String(key.split(separator: ":").first ?? "")
            try await database.execute(
                """
                INSERT INTO discern.service_budgets (backend, price_per_call, cap_calls, cap_period) VALUES (\(service), 0.01, 41, 'day')
                """)
            let gate = LateGate(PostgresRateGate(conninfo: conninfo, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }))
            var conversation = ServiceCaller(http: CurlHTTPClient(configuration: .init(threads: 1)), gate: gate)
                .conversation(AnalysisRequest(action: "analyze"))
            // Nothing listens there: no call can leave anyway, every slot is missed before it would.
            let request = HTTPRequest(method: "POST", url: "http://127.0.0.1:9/never")
            let error = await #expect(throws: ServiceError.self) {
                _ = try await conversation.send(request, step: "a call", limitKey: key) { _ throws(ServiceError) in () }
            }
            #expect(error?.code == .slotMissed, "\(String(describing: error))")
            let taken = gate.taken.withLock { $0 }
            let billed =
                try await database.rows(
                    "SELECT coalesce(sum(calls), 0)::bigint FROM discern.billed_calls WHERE backend = \(service)", as: Int.self
                ).first ?? -1
            // Each try of the call misses its slots (the attempt's retries ask again): all taken, none billed.
            #expect(taken >= Conversation.maxMissedSlots + 1 && billed == 0, "\(taken) slots taken, billed \(billed)")
        }
    }

    @Test("two worker processes together stay within the landmark limit the simulator counts")
    func limitHoldsAcrossProcesses() async throws {
        let perSecond = 4.0, burst = 2.0
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = try (1...6).map { try folder.write(SampleImages.photo(width: 320, height: 240, seed: $0), as: "p\($0).jpg") }
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in
                    try connection.execute(
                        "INSERT INTO discern.rate_limits (key, per_minute, burst) VALUES ('landmark', \(perSecond * 60), \(burst))")
                    try JobQueue.enqueue(connection, paths: (0..<40).map { photos[$0 % photos.count] }, service: "landmark", action: "predict")
                }
                try await TestSimulator.with { simulator in
                    let environment = ["DISCERN_LANDMARK_URL": simulator.landmarkURL, "DISCERN_DISCERNER_URL": ""]
                    let workers = try (0..<2).map { _ in
                        try WorkerProcess(
                            conninfo: conninfo, simulatorURL: "", logFolder: folder,
                            arguments: ["--drain", "--concurrency", "8", "--poll-seconds", "0.2"], environment: environment)
                    }
                    for worker in workers { await worker.expectExit() }
                    for worker in workers {
                        #expect(
                            worker.exitStatus == 0, "the worker exited with \(String(describing: worker.exitStatus)): \(worker.output.suffix(1500))")
                    }
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census.succeeded == 40, "\(census)")
                    // A bucket grants at most burst + rate x window in any window. A call leaves within
                    // RateSlot.maxLateness (0.2 s) of its slot or takes a new one, and the simulator
                    // stamps each call when the kernel received it (ArrivalStamp), however late it
                    // read it: one second covers both. Without the limit all 40 calls arrive within
                    // about a second.
                    let calls = await simulator.stats.readDelays("landmark")
                    let timeline = calls.map { call in
                        let at = String(format: "%.3f", call.arrived.timeIntervalSince(calls.first?.arrived ?? call.arrived))
                        return call.delay > 0.05 ? "\(at) (read \(String(format: "%.2f", call.delay)) s later)" : at
                    }.joined(separator: " ")
                    #expect(await simulator.stats.unstampedCalls("landmark") == 0, "every arrival is the kernel's")
                    let late = calls.filter { $0.delay > 0.05 }
                    print(
                        "landmark limit: \(late.count) of \(calls.count) calls read more than 50 ms after they arrived (at most \(String(format: "%.2f", calls.map(\.delay).max() ?? 0)) s)"
                    )
                    for window in [1.0, 2.0, 5.0] {
                        let most = await simulator.stats.maxCalls("landmark", within: window)
                        #expect(Double(most) <= burst + perSecond * (window + 1), "\(most) calls within \(window) s; arrivals (s): \(timeline)")
                    }
                    for worker in workers {
                        let output = (try? String(contentsOf: worker.log, encoding: .utf8)) ?? ""
                        #expect(!output.contains("succeeded: 0 "), "both processes took jobs: \(output.suffix(300))")
                    }
                }
            }
        }
    }
}

/// The shared gate, but every slot it hands out is already past: what a worker woken too late
/// by a loaded machine meets.
private final class LateGate: RateGate {
    let inner: PostgresRateGate
    let taken = Mutex(0)

    init(_ inner: PostgresRateGate) { self.inner = inner }

    func acquire(_ key: String) async throws(ServiceError) -> RateSlot {
        _ = try await inner.acquire(key)
        taken.withLock { $0 += 1 }
        return RateSlot(sendAt: nil, sendBy: .now - .seconds(1))
    }

    func rateLimited(_ key: String, retryAfterSeconds: Double?) async {}
    func unused(_ key: String) async { await inner.unused(key) }
}
