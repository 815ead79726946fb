import Foundation
import JobQueue
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// Re-analysis when a service changes: the photos whose current answer came from the old
/// provider are enqueued again through the content-hash dedupe on purpose, forecast before they
/// start, behind the night's new work, under the spend cap, and every answer stays queryable.
@Suite("Re-analysis", .integrationTimeLimit)
struct ReanalysisTests {
    @Test(
        "after a provider change, reanalyse --where provider=old: the forecast matches the calls made within 10 %, photos enqueued tonight during it are all claimed before it goes on, both answers stay, and the same name or selection adds nothing again"
    )
    func afterAProviderChange() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo), discern = try WorkerProcess.binary.path
                let requal = try Self.photos(in: folder, "requal", seeds: 800..<830)
                let tonight = try Self.photos(in: folder, "tonight", seeds: 900..<930)
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                // Each analysis takes 100 ms: the re-analysis is still under way when tonight's photos come.
                var paced = SimulatorConfiguration.unthrottled
                paced.faults.analyzeDelaySeconds = 0.1
                try await TestSimulator.with(paced) { simulator in
                    _ = try await Subprocess.run(discern, ["enqueue", requal.path, "--batch", "requal", "--database-url", conninfo])
                    let first = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"])
                    _ = await first.expectExit()
                    #expect(first.exitStatus == 0, "\(first.output.suffix(1500))")
                    try await Self.changeProvider(simulator, to: "vision-2026-11")
                    // The dedupe still holds for an ordinary enqueue of the same files.
                    let again = try await Subprocess.run(discern, ["enqueue", requal.path, "--batch", "again", "--database-url", conninfo])
                    #expect(await database.jobCount(where: "batch_id = (SELECT id FROM discern.batches WHERE name = 'again')") == 0, "\(again)")

                    let reanalyse = ["reanalyse", "--service", "discerner", "--where", "provider=simulator", "--batch", "requal", "--format", "json"]
                    let dry = try await Self.forecast(discern, reanalyse + ["--name", "nov", "--dry-run", "--database-url", conninfo])
                    #expect(dry.selected == 30 && dry.enqueued == 30 && !dry.started, "\(dry)")
                    #expect(await database.jobCount(where: "state = 'available'") == 0, "a dry run enqueues nothing")
                    let started = try await Self.forecast(discern, reanalyse + ["--name", "nov", "--database-url", conninfo])
                    #expect(started.enqueued == 30 && started.started && started.calls == dry.calls, "\(started)")
                    let logged = try await database.rows("SELECT jobs FROM discern.operator_actions WHERE action = 'reanalyse'", as: Int.self)
                    #expect(logged == [30])

                    try await Self.recordClaims(database)
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--concurrency", "1", "--prepare-threads", "1", "--log-level", "debug"])
                    defer { worker.kill() }
                    let inBatch: SQL = "batch_id = (SELECT id FROM discern.batches WHERE name = 'reanalysis:nov')"
                    #expect(await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded' AND \(inBatch)") >= 6 })
                    // Tonight's photos arrive while it runs: between a pause and a resume, so the
                    // claims after the resume are exactly those that saw them waiting. Claims of a
                    // job or two (one at a time, one thread preparing): far more than the ten in
                    // which the oldest-first share would serve the re-analysis if it could.
                    let mark = worker.outputLength
                    _ = try await database.withConnection { try Pausing.pause($0, service: "discerner", by: "test") }
                    #expect(await worker.heldNothingAndClaimedNothing(after: mark), "\(worker.output.suffix(1500))")
                    _ = try await Subprocess.run(discern, ["enqueue", tonight.path, "--batch", "tonight", "--database-url", conninfo])
                    let boundary = try await database.rows("SELECT coalesce(max(seq), 0) AS seq FROM test_claims", as: Int.self).first ?? 0
                    _ = try await database.withConnection { try Pausing.resume($0, service: "discerner", by: "test") }
                    #expect(await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded'") == 30 + 30 + 30 })
                    #expect(await database.jobCount(where: "state <> 'succeeded'") == 0)

                    // After the resume, no re-analysis job was claimed before the last of
                    // tonight's but in the very claim that took it (one statement, priority order).
                    let claims: [(seq: Int, xid: String, batch: String)] = try await database.rows(
                        """
                        SELECT c.seq, c.xid::text AS xid, b.name AS batch FROM test_claims c JOIN discern.batches b ON b.id = c.batch_id
                        WHERE c.seq > \(boundary) ORDER BY c.seq
                        """, as: Int.self, String.self, String.self
                    )
                    let lastTonight = try #require(claims.lastIndex { $0.batch == "tonight" })
                    let early = claims[..<lastTonight].filter { $0.batch != "tonight" && $0.xid != claims[lastTonight].xid }
                    #expect(claims.count > 30, "the re-analysis went on after tonight's photos: \(claims)")
                    #expect(early.isEmpty && claims.filter { $0.batch == "tonight" }.count == 30, "\(claims)")

                    let made =
                        try await database.rows("SELECT sum(api_calls)::bigint FROM discern.results WHERE \(inBatch)", as: Int.self).first ?? 0
                    #expect(made > 0 && abs(Double(dry.calls - made)) <= 0.1 * Double(made), "forecast \(dry.calls) calls, made \(made)")
                    let answers = try await database.rows(
                        """
                        SELECT string_agg(model, ',' ORDER BY created_at, id) AS models FROM discern.results
                        WHERE batch_id IN (SELECT id FROM discern.batches WHERE name IN ('requal', 'reanalysis:nov')) GROUP BY image_path
                        """, as: String.self
                    )
                    #expect(answers.count == 30 && Set(answers) == ["simulator,vision-2026-11"], "\(answers)")
                    let history = try await Subprocess.run(
                        discern, ["results", "--photo", requal.appendingPathComponent("p800.jpg").path, "--database-url", conninfo])
                    let lines = history.split(separator: "\n").filter { $0.contains("p800.jpg") }
                    #expect(
                        lines.count == 2 && lines[lines.startIndex].contains("vision-2026-11") && lines.last?.contains("simulator") == true,
                        "\(history)")
                    let latest = try await database.value(
                        "SELECT count(*) FROM discern.latest_results WHERE model = 'vision-2026-11' AND image_path LIKE \(requal.path + "/%")",
                        as: Int.self
                    )
                    #expect(latest == 30)

                    let rerun = try await Self.forecast(discern, reanalyse + ["--name", "nov", "--database-url", conninfo])
                    let other = try await Self.forecast(discern, reanalyse + ["--name", "nov-2", "--database-url", conninfo])
                    #expect(rerun.enqueued == 0 && other.selected == 0, "\(rerun) \(other)")
                }
            }
        }
    }

    @Test(
        "a spend cap stops a re-analysis part way, within the room its forecast gave: the rest wait, none dies or is lost; a higher cap lets it finish with one new answer a photo"
    )
    func stoppedBySpendCap() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo), discern = try WorkerProcess.binary.path
                let photos = try Self.photos(in: folder, "capped", seeds: 840..<860)
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 6000, burst = 50")
                try await TestSimulator.with(.unthrottled) { simulator in
                    _ = try await Subprocess.run(discern, ["enqueue", photos.path, "--batch", "capped", "--database-url", conninfo])
                    let first = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"])
                    _ = await first.expectExit()
                    // Room for ten more jobs of two billed calls each (an upload URL, an analysis).
                    try await database.execute(
                        """
                        INSERT INTO discern.service_budgets (backend, price_per_call, cap_calls, cap_period)
                        SELECT 'discerner', 0.01, coalesce(sum(calls), 0) + 20, 'day' FROM discern.billed_calls WHERE backend = 'discerner'
                        """)
                    try await Self.changeProvider(simulator, to: "vision-2026-12")
                    let forecast = try await Self.forecast(
                        discern,
                        ["reanalyse", "--service", "discerner", "--batch", "capped", "--name", "dec", "--format", "json", "--database-url", conninfo])
                    #expect(forecast.enqueued == 20 && forecast.calls == 40 && forecast.photosWithinCap == 10, "\(forecast)")
                    #expect(forecast.cost == 0.4, "\(forecast)")
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--concurrency", "4", "--log-level", "debug"])
                    defer { worker.kill() }
                    let stopped = await Announcements.until(conninfo) {
                        let capped = try? await database.value(
                            "SELECT count(*) FROM discern.paused_backends WHERE paused_by = 'spend cap'", as: Int.self)
                        let running = await database.jobCount(where: "state = 'running'")
                        return capped == 1 && running == 0
                    }
                    #expect(stopped, "\(worker.output.suffix(1000))")
                    let inBatch: SQL = "batch_id = (SELECT id FROM discern.batches WHERE name = 'reanalysis:dec')"
                    let done = await database.jobCount(where: "state = 'succeeded' AND \(inBatch)")
                    let waiting = await database.jobCount(where: "state = 'available' AND \(inBatch)")
                    // At most what the forecast left room for: a call whose job the cap then stopped
                    // (an upload URL before a refused analysis) is billed too.
                    #expect(done > 0 && done <= 10 && done + waiting == 20, "\(done) answered within the cap, \(waiting) wait")
                    let billed = try await database.rows("SELECT sum(calls)::bigint FROM discern.billed_calls", as: Int.self).first ?? 0
                    let cap = try await database.rows("SELECT cap_calls FROM discern.service_budgets", as: Int.self).first ?? 0
                    #expect(billed <= cap, "billed \(billed), cap \(cap)")
                    #expect(await database.jobCount(where: "state = 'dead'") == 0)

                    try await database.execute("UPDATE discern.service_budgets SET cap_calls = cap_calls + 1000")
                    #expect(await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded' AND \(inBatch)") == 20 })
                    let perPhoto = try await database.rows("SELECT count(*) FROM discern.results GROUP BY image_path", as: Int.self)
                    #expect(perPhoto.count == 20 && perPhoto.allSatisfy { $0 == 2 }, "\(perPhoto)")
                }
            }
        }
    }

    /// A distinct photo per seed, in a folder of their own.
    static func photos(in folder: URL, _ name: String, seeds: Range<Int>) throws -> URL {
        let directory = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for seed in seeds {
            try SampleImages.photo(width: 160, height: 120, seed: seed).write(to: directory.appendingPathComponent("p\(seed).jpg"))
        }
        return directory
    }

    static func changeProvider(_ simulator: RunningSimulator, to name: String) async throws {
        let port = try #require(URLComponents(string: simulator.baseURL)?.port)
        let changed = await RawHTTP.post(
            port: port, path: "/_sim/discerner-provider", body: #"{"name": "\#(name)", "disagreement": 0.5}"#,
            headers: ["Content-Type": "application/json"])
        #expect(changed.status == 200, "\(changed.body)")
    }

    static func forecast(_ discern: String, _ arguments: [String]) async throws -> Reanalysis.Forecast {
        let output = try await Subprocess.run(discern, arguments)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Reanalysis.Forecast.self, from: Data(output.utf8))
    }

    /// Records every claim (a job going from waiting to running) with its transaction, in order.
    static func recordClaims(_ database: Database) async throws {
        try await database.withConnection { connection in
            try connection.executeScript(
                """
                CREATE TABLE test_claims (seq bigserial PRIMARY KEY, job_id bigint, batch_id bigint, xid xid8 DEFAULT pg_current_xact_id());
                CREATE FUNCTION test_record_claim() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO test_claims (job_id, batch_id) VALUES (NEW.id, NEW.batch_id);
                    RETURN NULL;
                END $$;
                CREATE TRIGGER test_claims AFTER UPDATE ON discern.jobs FOR EACH ROW
                    WHEN (OLD.state = 'available' AND NEW.state = 'running') EXECUTE FUNCTION test_record_claim();
                """)
        }
    }
}
