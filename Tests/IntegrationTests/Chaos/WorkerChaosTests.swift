import Foundation
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// Real worker processes, real signals, real PostgreSQL: nothing is lost or done twice.
@Suite("Chaos: worker processes", .integrationTimeLimit)
struct WorkerChaosTests {
    static let fastLeases = ["--lease-seconds", "2", "--poll-seconds", "0.2", "--concurrency", "4", "--log-level", "notice"]

    @Test("SIGKILL of random workers, again and again, while 3 drain 1,000 jobs: every job succeeds exactly once")
    func killWorkers() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(1000, into: conninfo, folder: folder)
                // The first six kills come while the analyses are held, each once its victim holds
                // jobs: on a loaded machine the workers once drained all 1,000 between two kills.
                var configuration = SimulatorConfiguration.unthrottled
                configuration.faults.holdAnalyses = true
                try await TestSimulator.with(configuration) { simulator in
                    var workers = try (0..<3).map { _ in
                        try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.fastLeases)
                    }
                    var kills = 0
                    while kills < 12, try await TestDatabase.census(conninfo).succeeded < 900 {
                        let victim = Int.random(in: 0..<workers.count)
                        if kills < 6 {
                            let pid = workers[victim].pid
                            _ = try await Announcements.until(conninfo) { try await Self.holdsJobs(pid: pid, conninfo) }
                        } else {
                            try await Task.sleep(for: .milliseconds(Int.random(in: 200...600)))
                        }
                        workers[victim].kill()
                        kills += 1
                        workers[victim] = try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                            arguments: Self.fastLeases)
                        if kills == 6 { await simulator.releaseAnalyses() }
                    }
                    let done = try await ChaosJobs.finished(conninfo, total: 1000)
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    // A kill is a file's doing only while the worker prepared it alone: no healthy
                    // job ends dead, however often its workers die around it.
                    let expected = QueueCensus(succeeded: 1000, results: 1000, jobsWithOneResult: 1000)
                    let explained =
                        census == expected
                        ? ""
                        : "\(try await ChaosJobs.unfinishedJobs(conninfo))\nworker logs: \(ChaosJobs.keepLogs(of: folder, test: "chaos-kill-workers"))"
                    #expect(done, "not finished: \(census)\n\(explained)")
                    #expect(kills >= 5, "the run ended before the workers were killed often enough")
                    #expect(census == expected, "\(census) after \(kills) kills\n\(explained)")
                }
            }
        }
    }

    /// A file that kills its worker is found by where the worker dies: three times beside other
    /// jobs makes it a suspect, run alone; three deaths while its file is being prepared alone
    /// end it. A death of its worker elsewhere (its analysis under way) is not the file's doing.
    @Test(
        "a job whose worker dies whenever it holds it, and at last while preparing its file alone, ends dead as worker_crashed after 3 such deaths; other deaths are not counted; the jobs beside it succeed once"
    )
    func poisonJobEndsDead() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.3  // the other jobs are in flight when a worker is killed too
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(40, into: conninfo, folder: folder)
                let observer = Database(conninfo: conninfo, name: "test-crasher")
                let poison = try await observer.value("SELECT min(id) FROM discern.jobs", as: Int.self)
                // A large PNG takes a second or more to prepare: long enough to be seen being prepared.
                let large = try folder.write(SampleImages.photo(width: 6000, height: 6000, seed: 3, suffix: ".png[compression=1]"), as: "poison.png")
                try await observer.execute("UPDATE discern.jobs SET image_path = \(large) WHERE id = \(poison)")
                // Its analysis never answers: once prepared, the poison is in flight until its worker
                // dies, however long a loaded machine keeps this loop from looking.
                configuration.faults.heldJobs = ["discern-job-\(poison)"]
                try await TestSimulator.with(configuration) { simulator in
                    var workers = try (0..<3).map { _ in
                        try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.fastLeases)
                    }
                    var kills = 0, whilePreparing = 0
                    // The loop ends when every job has ended; the deadline only guards against a hang.
                    let deadline = Date().addingTimeInterval(600)
                    while Date() < deadline {
                        let census = try await TestDatabase.census(conninfo)
                        if census.succeeded + census.dead == 40 { break }
                        func holder() async throws -> (pid: Int?, suspect: Bool, preparing: Bool)? {
                            let holders: [(pid: Int?, suspect: Bool, preparing: Bool)] = try await observer.rows(
                                """
                                SELECT w.pid, j.shared_crashes >= 3 AS suspect, coalesce(j.preparing_by = j.lease_owner, false) AS preparing
                                FROM discern.jobs j JOIN discern.workers w ON w.id = j.lease_owner
                                WHERE j.id = \(poison) AND j.state = 'running'
                                """, as: Int?.self, Bool.self, Bool.self
                            )
                            return holders.first
                        }
                        if let seen = try await holder(), let pid = seen.pid,
                            let victim = workers.firstIndex(where: { $0.pid == Int32(pid) && $0.isRunning })
                        {
                            // Frozen, the worker cannot set or clear its mark: what is read now is
                            // where it dies (read before the freeze, the mark could be set between
                            // the look and the kill, and the death miscounted here).
                            workers[victim].pause()
                            let frozen = try await holder()
                            let stillHeld = frozen?.pid == pid
                            // Before it is a suspect, whenever its worker holds it; after, while its file
                            // is being prepared, or once it waits on its service (a moment missed).
                            let preparing = stillHeld && frozen?.preparing == true
                            let suspect = frozen?.suspect ?? true
                            let waitsOnService = stillHeld && suspect && !preparing ? await simulator.holdsAnalysis(of: poison) : false
                            let due = stillHeld && (!suspect || preparing || waitsOnService)
                            if due {
                                workers[victim].kill()
                                (kills, whilePreparing) = (kills + 1, whilePreparing + (preparing ? 1 : 0))
                                workers[victim] = try WorkerProcess(
                                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                                    arguments: Self.fastLeases)
                            } else {
                                workers[victim].resume()
                            }
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    let logs = workers.map { String($0.output.suffix(600)) }.joined(separator: "\n---\n")
                    await WorkerProcess.stopAll(workers)
                    // The held analyses of killed workers end before the simulator stops.
                    await simulator.releaseAnalyses()
                    let census = try await TestDatabase.census(conninfo)
                    let (state, kind, sharedCrashes, soloCrashes, counted) = try #require(
                        try await observer.rows(
                            """
                            SELECT state, error_kind, shared_crashes, solo_crashes,
                                   (SELECT count(*) FROM jsonb_array_elements(error_history) e WHERE (e->>'counted')::boolean) AS counted
                            FROM discern.jobs WHERE id = \(poison)
                            """, as: String.self, String?.self, Int.self, Int.self, Int.self
                        ).first)
                    let explained =
                        "\(census) after \(kills) kills (\(whilePreparing) seen while preparing)\n"
                        + "\(try await ChaosJobs.unfinishedJobs(conninfo))\nthe live workers' logs:\n\(logs)"
                    #expect(state == "dead" && kind == "worker_crashed", "\(explained)")
                    #expect(soloCrashes == 3 && counted == 3, "\(explained)")
                    // Each kill rescued it once: counted while its file was being prepared, handed back otherwise.
                    #expect(sharedCrashes == kills - 3, "\(explained)")
                    #expect(whilePreparing >= 3, "\(explained)")
                    #expect(census == QueueCensus(succeeded: 39, dead: 1, results: 39, jobsWithOneResult: 39), "\(explained)")
                    print("poison: dead after \(kills) kills, \(whilePreparing) while its file was being prepared alone")
                }
            }
        }
    }

    /// journald restarting, or a log shipper gone, leaves a worker writing its log lines into a
    /// pipe nobody reads: each write fails (EPIPE). Left to SIGPIPE (or Foundation's trap on a
    /// failed write), the worker would die with its jobs in hand.
    @Test("a worker whose log pipe loses its reader drains on: every job succeeds once, exit status 0")
    func logReaderGone() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(20, into: conninfo, folder: folder)
                try await TestSimulator.with(.unthrottled) { simulator in
                    // `head -c 1` takes the first byte of the log and leaves; every line after it
                    // meets a closed pipe. The worker's own exit status is printed.
                    let script =
                        #""$0" work --drain --database-url "$1" --discerner-url "$2" --log-level debug --concurrency 2 2>&1 | head -c 1 >/dev/null; echo "status=${PIPESTATUS[0]}""#
                    let output = try await Subprocess.run(
                        "/bin/bash", ["-c", script, try WorkerProcess.binary.path, conninfo, simulator.discernerURL],
                        environment: ["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path])
                    let census = try await TestDatabase.census(conninfo)
                    #expect(output.contains("status=0"), "\(output) \(census)")
                    #expect(census == QueueCensus(succeeded: 20, results: 20, jobsWithOneResult: 20), "\(census)")
                }
            }
        }
    }

    /// Every step waits on the one before, never on the clock: the simulator holds each analysis,
    /// so jobs are in flight when the SIGTERM lands, however slow the machine; once the worker
    /// says it stopped claiming, the test releases them and they finish within the grace period
    /// (docs/decisions/0009-tests-wait-on-events.md).
    @Test("SIGTERM: jobs in flight finish within the grace period and the worker exits cleanly")
    func sigtermFinishesInFlight() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(100, into: conninfo, folder: folder)
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits", "--hold-analyses"])
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--concurrency", "8", "--grace-seconds", "\(Self.grace)", "--log-level", "info"])
                let inFlight = await Poll.until { await simulator.calls("discerner.analyze") > 0 }
                worker.terminate()
                let stopped = await worker.logged("stopping: no more claims")
                let released = await simulator.releaseAnalyses()
                let exited = await worker.waitForExit(seconds: Self.grace + 60)
                await simulator.stop()
                let census = try await TestDatabase.census(conninfo)
                let explained = ChaosJobs.FailureStory(facts: "\(census), \(released) analyses released", folder: folder, test: "sigterm-in-flight")
                #expect(inFlight, "no analysis reached the service: \(explained)")
                #expect(stopped, "the worker did not say it stopped claiming: \(explained)")
                #expect(exited, "the worker did not exit within the grace period: \(explained)")
                #expect(worker.exitStatus == 0, "\(explained)")
                #expect(census.running == 0, "\(explained)")
                #expect(census.succeeded >= released && released > 0, "every analysis in flight finished: \(explained)")
                #expect(census.succeeded < 100, "jobs not yet begun went back: \(explained)")
                #expect(census.succeeded + census.available == 100, "\(explained)")
                #expect(census.results == census.succeeded)
            }
        }
    }

    /// How long jobs in hand may take once the SIGTERM landed: the held analyses answer the
    /// moment they are released, so this only bounds a worker that would hang.
    static let grace = 120.0

    @Test("SIGTERM with a short grace period: unfinished jobs are handed back, attempt not counted")
    func sigtermHandsBack() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        // No analysis finishes before the SIGTERM, however slow the machine: on a starved one,
        // seconds pass between "4 running" and the signal taking effect.
        configuration.faults.analyzeDelaySeconds = 3600
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(20, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--concurrency", "4", "--grace-seconds", "0.5"])
                    _ = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).running >= 4 }
                    worker.terminate()
                    await worker.expectExit()
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census.running == 0 && census.available == 20, "\(census)")
                    let attempts = try await Database(conninfo: conninfo).value("SELECT max(attempts) FROM discern.jobs", as: Int.self)
                    #expect(attempts == 0)
                }
            }
        }
    }

    /// Whether the worker process `pid` holds running jobs (its registration names its pid).
    static func holdsJobs(pid: Int32, _ conninfo: String) async throws -> Bool {
        let held =
            try await Database(conninfo: conninfo, name: "test-holding").value(
                """
                SELECT count(*) FROM discern.jobs j JOIN discern.workers w ON w.id = j.lease_owner
                WHERE j.state = 'running' AND w.pid = \(Int(pid))
                """, as: Int.self
            )
        return held > 0
    }

}
