import Foundation
import JobQueue
import Postgres
import QueueReads
import SampleImages
import Simulator
import TestFixtures
import Testing

/// The night's plan against what the night does: a real worker, the simulator, the shared rate
/// limit as the binding constraint.
@Suite("The night's plan", .integrationTimeLimit)
struct PlanTests {
    /// What a forecast can promise is what binds the pace: the rate limit. So the test checks the
    /// plan's figures against that limit, and the night against the plan on the side the limit
    /// guarantees: no job finishes sooner than forecast, no more fit in the window. Whether a
    /// worker keeps up with its limit is the machine's speed, not the forecast's truth (beside
    /// sixty other tests on 2 cores it misses slots); that is measured, not asserted.
    @Test(
        "at 120 analyses a minute, the plan forecasts the finish and what a window leaves over at the rate limit's pace, and the night is never ahead of it"
    )
    func forecastHolds() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 120, burst = 1 WHERE key = 'discerner:analyze'")
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 600, burst = 5 WHERE key = 'discerner:upload-url'")
                try await database.execute("INSERT INTO discern.service_budgets (backend, price_per_call) VALUES ('discerner', 0.002)")
                try await TestSimulator.with(.unthrottled) { simulator in
                    // The worker is up, listening, before the night's jobs arrive.
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--concurrency", "8"])
                    defer { worker.kill() }
                    #expect(
                        await Announcements.until(conninfo) {
                            (try? await database.value("SELECT count(*) FROM discern.live_workers", as: Int.self)) == 1
                        })
                    let jobs = 160, window = 40.0
                    let images = try (1...20).map { try folder.write(SampleImages.photo(width: 96, height: 64, seed: $0), as: "night-\($0).jpg") }
                    try await database.withConnection { connection in
                        _ = try JobQueue.enqueue(connection, paths: (0..<jobs).map { images[$0 % images.count] }, batch: "night")
                    }
                    let start = Date()
                    let until = start.addingTimeInterval(window)
                    let output = try await Subprocess.run(
                        try WorkerProcess.binary.path,
                        [
                            "plan", "--database-url", conninfo, "--until", until.formatted(.iso8601), "--format", "json"
                        ])
                    let decoder = JSONDecoder()
                    decoder.keyDecodingStrategy = .convertFromSnakeCase
                    let plan = try decoder.decode(Plan.self, from: Data(output.utf8))
                    let service = try #require(plan.services.first { $0.service == "discerner" })
                    #expect(service.constraintText == "rate limit discerner:analyze", "\(service.constraintText)")
                    #expect(service.limitPerMinute == 120)
                    let planned = try #require(try? Date(plan.generatedAt, strategy: .iso8601))
                    let early = try #require(service.finishEarly.flatMap { try? Date($0, strategy: .iso8601) })
                    let late = try #require(service.finishLate.flatMap { try? Date($0, strategy: .iso8601) })
                    let willNotFinish = try #require(service.willNotFinish)
                    #expect(late >= early)
                    #expect(
                        service.leftOver.first?.batch == "night" && service.leftOver.map(\.jobs).reduce(0, +) == willNotFinish, "\(service.leftOver)")
                    let calls = Double(service.waiting + service.running) * (service.callsPerJob ?? 1) * (service.attemptsPerJob ?? 1)
                    #expect(
                        abs((service.costForecast ?? 0) - calls * 0.002) < 0.006, "\(String(describing: service.costForecast)) for \(calls) calls")

                    // The plan's figures: the jobs queued when it was made, at two a second.
                    let queued = Double(service.waiting + service.running)
                    let forecast = early.timeIntervalSince(planned)
                    #expect(abs(forecast - queued / 2) <= 0.1 * queued / 2, "forecast \(forecast) s for \(queued) jobs at 120 a minute")
                    let windowLeft = until.timeIntervalSince(planned)
                    let expectedLeft = max(0, queued - 2 * windowLeft)
                    #expect(
                        abs(Double(willNotFinish) - expectedLeft) <= 0.1 * expectedLeft + 2,
                        "\(willNotFinish) will not finish; \(queued) queued, \(windowLeft) s of window at 2 a second")

                    // The night against the plan, read from the jobs' own finish times once all are
                    // done (so a test process starved for seconds reads the same figures).
                    #expect(
                        await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded'") == jobs },
                        "\(worker.output.suffix(800))")
                    let finishes: [(last: Double?, afterClose: Int)] = try await database.rows(
                        """
                        SELECT extract(epoch FROM max(finished_at))::float8 AS last,
                               count(*) FILTER (WHERE finished_at > \(until.formatted(.iso8601))::timestamptz)::bigint AS after_close
                        FROM discern.jobs
                        """,
                        as: Double?.self, Int.self
                    )
                    let times = try #require(finishes.first)
                    let real = try #require(times.last) - planned.timeIntervalSince1970
                    let leftAtClose = times.afterClose
                    #expect(real >= 0.9 * forecast, "finished \(real) s after the plan, forecast \(forecast) s: the rate limit was not kept")
                    #expect(
                        Double(leftAtClose) >= 0.9 * Double(willNotFinish),
                        "forecast \(willNotFinish) will not finish in the window; only \(leftAtClose) did not: the rate limit was not kept")
                    #expect(await database.jobCount(where: "state = 'dead'") == 0)
                    // Every analysis and upload URL took a slot: billed, and priced.
                    let after = try await Subprocess.run(try WorkerProcess.binary.path, ["plan", "--database-url", conninfo, "--format", "json"])
                    #expect(
                        try decoder.decode(Plan.self, from: Data(after.utf8)).services.isEmpty, "nothing is queued any more: \(after.prefix(300))")
                    let billed = try await database.rows(
                        "SELECT coalesce(sum(calls), 0)::bigint FROM discern.billed_calls WHERE backend = 'discerner'", as: Int.self
                    ).first
                    #expect((billed ?? 0) >= 2 * jobs, "\(String(describing: billed)) billed calls for \(jobs) jobs")
                }
            }
        }
    }

    @Test("in Chromium: the Plan page shows the pace, what binds it, what a window leaves over by batch and priority, the cost and the cap")
    func planPage() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                let images = try (1...4).map { try folder.write(SampleImages.photo(width: 96, height: 64, seed: 70 + $0), as: "p\($0).jpg") }
                try await database.withConnection { connection in
                    _ = try JobQueue.enqueue(connection, paths: (0..<900).map { images[$0 % 4] }, batch: "nightly-2026-11-24")
                    _ = try JobQueue.enqueue(connection, paths: (0..<300).map { images[$0 % 4] }, batch: "archive-2019", priority: 5)
                }
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 30 WHERE key = 'discerner:analyze'")
                try await database.execute(
                    """
                    INSERT INTO discern.service_budgets (backend, price_per_call, cap_calls, cap_period) VALUES ('discerner', 0.0015, 50000, 'month')
                    """)
                // A live worker, as its heartbeat leaves it: the plan counts who serves what.
                try await database.execute(
                    """
                    INSERT INTO discern.workers (id, host, pid, version, backends, heartbeat_seconds) VALUES ('w1', 'night-1', 4242, 'test', ARRAY['discerner'], 3600)
                    """)
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let until = Date().addingTimeInterval(30 * 60).formatted(.iso8601)
                let tour = try await BrowserSession.run([
                    .go("http://127.0.0.1:\(port)/plan?until=\(until)"), .text,
                    .screenshot(BrowserSession.screenshots.appendingPathComponent("plan.png").path)
                ])
                let text = tour.steps[1].text ?? ""
                // 1,200 jobs at 30 a minute: 900 fit in 30 minutes, the 300 of priority 5 do not.
                #expect(
                    text.contains("rate limit discerner:analyze") && text.contains("30.0") && text.contains("archive-2019"), "\(text.prefix(1500))")
                #expect(text.contains("will not finish") && text.contains("300"), "\(text.prefix(1500))")
                #expect(text.contains("1.80"), "the cost forecast: 1,200 calls at 0.0015: \(text.prefix(1500))")
            }
        }
    }
}
