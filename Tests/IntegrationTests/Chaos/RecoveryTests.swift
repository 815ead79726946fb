import Foundation
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// Recovery with the shipped settings (30 s leases renewed every 10 s, each worker's session
/// holding its lock): a crashed worker's jobs run again whatever the rest of the fleet does, and
/// no live worker's job is ever taken, across restarts and failovers.
@Suite("Chaos: recovery with default settings", .integrationTimeLimit)
struct RecoveryTests {
    /// A fleet under a supervisor that restarts crashed workers at once: no worker lives long
    /// enough to wait for anything, so rescue must not depend on a survivor. Every analysis is
    /// held until the fifth kill and the restart after it, so the workers killed first hold
    /// jobs and the restart meets jobs in hand, however fast or slow the machine. The kills go
    /// on until every job has ended; ten minutes is only the test's guard against hanging.
    @Test(
        "a crash loop: 3 workers with defaults, a random one SIGKILLed every 2 s and PostgreSQL restarted once: all 300 jobs succeed exactly once while the kills go on"
    )
    func crashLoop() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.15
        configuration.faults.holdAnalyses = true
        try await DatabaseChaosTests.withPrivateCluster { conninfo, clusterFolder in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(300, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let started = Date()
                    var workers = try (0..<3).map { _ in try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder) }
                    func finished() async -> Bool {
                        guard let census = try? await TestDatabase.census(conninfo) else { return false }
                        return census.succeeded + census.dead == 300
                    }
                    let holding = try await Announcements.until(conninfo) { try await Self.pidHoldingJobs(conninfo) != nil }
                    try #require(holding, "no worker took a job")
                    var kills = 0, restarted = false, ended = false
                    let script = ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path
                    while Date().timeIntervalSince(started) < 600 {
                        if restarted, await finished() { ended = true; break }
                        // The first victim holds jobs: there is always something to rescue.
                        let owner = kills == 0 ? try await Self.pidHoldingJobs(conninfo) : nil
                        let victim = workers.firstIndex { $0.pid == owner } ?? Int.random(in: 0..<workers.count)
                        workers[victim].kill()
                        kills += 1
                        workers[victim] = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder)
                        if !restarted, kills == 5 {
                            _ = try await Subprocess.run("/bin/bash", [script, "restart", clusterFolder.path, "immediate"])
                            restarted = true
                            await simulator.releaseAnalyses()
                        }
                        try await Task.sleep(for: .seconds(2))
                    }
                    let elapsed = Date().timeIntervalSince(started)
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    let rescued = try await Self.rescuedJobs(conninfo)
                    let explained = ChaosJobs.FailureStory(
                        facts: "\(census) after \(kills) kills and \(Int(elapsed)) s\n\(try await ChaosJobs.unfinishedJobs(conninfo))",
                        folder: folder, test: "crash-loop")
                    #expect(restarted && kills >= 5)
                    #expect(ended, "the kills went on for ten minutes and the jobs had not all ended: \(explained)")
                    #expect(census == QueueCensus(succeeded: 300, results: 300, jobsWithOneResult: 300), "\(explained)")
                    print("crash loop: \(census), \(rescued) job(s) rescued, \(kills) kills, PostgreSQL restarted, \(Int(elapsed)) s")
                }
            }
        }
    }

    /// Alone, under a supervisor that restarts it at once: the new process finds the old one's
    /// session gone and takes its jobs back on its first rounds, long before the leases (ten
    /// minutes here) would have let them go. The order of events, read from the jobs' history,
    /// is what is checked; how many seconds it took is printed.
    @Test("a worker SIGKILLed holding jobs and restarted at once, alone: its jobs run again, rescued because its session is gone")
    func killedWorkersJobsReturn() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.holdAnalyses = true  // the first worker never finishes a call
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(4, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let first = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--lease-seconds", "600"])
                    let claimed = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).running == 4 }
                    #expect(claimed)
                    let owner = try await Self.runningOwner(conninfo)
                    first.kill()
                    let killed = Date()
                    let restarted = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--lease-seconds", "600"])
                    let back = try await Announcements.until(conninfo) { try await Self.jobs(notHeldBy: owner, conninfo) == 4 }
                    let seconds = Date().timeIntervalSince(killed)
                    await simulator.releaseAnalyses()
                    await WorkerProcess.stopAll([restarted])
                    #expect(back, "the killed worker's jobs did not come back")
                    let rescues: [(kind: String?, error: String?, beforeLeaseEnd: Bool)] = try await Database(
                        conninfo: conninfo, name: "test-report"
                    ).rows(
                        """
                        SELECT error_history->0->>'kind' AS kind, error_history->0->>'error' AS error,
                               (error_history->0->>'at')::timestamptz < created_at + interval '590 seconds' AS before_lease_end
                        FROM discern.jobs
                        """, as: String?.self, String?.self, Bool.self)
                    #expect(rescues.map { $0.kind ?? "-" } == Array(repeating: "lease_expired", count: 4))
                    let why = rescues.map { $0.error ?? "-" }
                    #expect(why.allSatisfy { $0.contains("its database session ended") }, "\(why)")
                    #expect(
                        rescues.allSatisfy { $0.beforeLeaseEnd }, "came back after \(Int(seconds)) s: by the lease, not the session"
                    )
                    print("a killed worker's jobs were back \(Int(seconds)) s after the kill")
                }
            }
        }
    }

    /// The case a quiet rule once guarded by making every rescuer wait at start: the database
    /// is away long enough that the live workers' heartbeats are stale, and a new worker starts
    /// the moment it is back, while the live ones are still reconnecting (frozen, so however
    /// fast the machine). It waits for them, and takes nothing.
    @Test("PostgreSQL away for three heartbeats, with live workers holding jobs and a new worker starting as it returns: no job is taken from them")
    func restartKeepsLiveWorkersJobs() async throws {
        try await DatabaseChaosTests.withPrivateCluster { conninfo, clusterFolder in
            let script = ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path
            try await Self.outageWithLiveWorkers(conninfo: conninfo, test: "restart-live-workers") { workers in
                _ = try await Subprocess.run("/bin/bash", [script, "stop", clusterFolder.path, "fast"])
                try await Self.silenced(workers)
                _ = try await Subprocess.run("/bin/bash", [script, "resume", clusterFolder.path])
            }
        }
    }

    @Test("the primary fails over to its standby while live workers hold jobs and a new worker starts on the promoted one: no job is taken from them")
    func failoverKeepsLiveWorkersJobs() async throws {
        try await DatabaseChaosTests.withPrivateCluster { primaryURL, primaryFolder in
            let standbyFolder = primaryFolder.appendingPathComponent("standby")
            try await DatabaseWeatherTests.withCluster(standbyFolder, start: ["standby", standbyFolder.path, primaryFolder.path]) { standbyURL in
                let conninfo = try DatabaseWeatherTests.multiHost(primaryURL, standbyURL)
                try await Self.outageWithLiveWorkers(conninfo: conninfo, test: "failover-live-workers") { workers in
                    // Nothing the workers did is lost with the primary: the standby has it all.
                    _ = try await Poll.until { try await TestDatabase.census(standbyURL).running == Self.heldJobs }
                    _ = try await Subprocess.run("/bin/bash", [DatabaseWeatherTests.script, "stop", primaryFolder.path, "immediate"])
                    try await Self.silenced(workers)
                    _ = try await Subprocess.run("/bin/bash", [DatabaseWeatherTests.script, "promote", standbyFolder.path])
                }
            }
        }
    }

    static let heldJobs = 8
    /// Two-second heartbeats (leases of 6 s), so that missing three takes seconds, not half a minute.
    static let quickBeats = ["--lease-seconds", "6", "--log-level", "notice"]

    /// Two workers take every job and hold it (the simulator holds the analyses); `outage` takes
    /// the database away, freezes them (`silenced`) and brings it back; a new worker starts at
    /// once and must wait for the frozen ones, which then come back. Then the analyses go on:
    /// every job succeeds once, on its first attempt, never handed back.
    static func outageWithLiveWorkers(conninfo: String, test: String, outage: ([WorkerProcess]) async throws -> Void) async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.holdAnalyses = true
        try await TestFolder.with { folder in
            try await ChaosJobs.enqueue(heldJobs, into: conninfo, folder: folder)
            try await TestSimulator.with(configuration) { simulator in
                let workers = try (0..<2).map { _ in
                    try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: quickBeats)
                }
                // Taking a presence lock announces nothing: polled.
                let held = try await Poll.until {
                    let locks = try await Self.presenceLocks(conninfo)
                    return try await TestDatabase.census(conninfo).running == heldJobs && locks == workers.count
                }
                try #require(held, "the workers did not take the jobs, or did not both come up")
                try await outage(workers)
                let newcomer = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: quickBeats)
                // The newcomer sees the frozen workers' jobs and waits; once they are back, it rescues again.
                let waited = await newcomer.logged("the database server is new")
                // When the frozen workers were let go, against the newcomer's log: CI once saw them
                // reconnect 35 s after its "server is new", past its 30 s wait, and could not tell
                // whether the test or the workers were late.
                let resumedAt = Date()
                workers.forEach { $0.resume() }
                let rescuedAfter = await newcomer.logged("rescuing again")
                let stillHeld = try await TestDatabase.census(conninfo).running
                await simulator.releaseAnalyses()
                let done = await Announcements.until(conninfo) {
                    (try? await TestDatabase.census(conninfo)).map { $0.succeeded + $0.dead == heldJobs } ?? false
                }
                await WorkerProcess.stopAll(workers + [newcomer])
                let census = try await TestDatabase.census(conninfo)
                let handedBack =
                    try await Database(conninfo: conninfo, name: "test-report").value(
                        """
                        SELECT count(*) FILTER (WHERE jsonb_array_length(error_history) > 0 OR attempts <> 1) FROM discern.jobs
                        """, as: Int.self
                    )
                let story = ChaosJobs.FailureStory(
                    facts: "\(census)\nworkers resumed at \(resumedAt.formatted(.iso8601))\n\(try await ChaosJobs.unfinishedJobs(conninfo))",
                    folder: folder, test: test)
                #expect(waited, "the new worker never said it waited for the frozen workers: \(story)")
                #expect(rescuedAfter, "the new worker never rescued again once they were back: \(story)")
                #expect(stillHeld == heldJobs, "jobs were taken from live workers: \(stillHeld) of \(heldJobs) still held: \(story)")
                #expect(done, "not finished: \(story)")
                #expect(handedBack == 0, "\(handedBack) job(s) were handed back or ran twice: \(story)")
                #expect(census == QueueCensus(succeeded: heldJobs, results: heldJobs, jobsWithOneResult: heldJobs), "\(story)")
                #expect(await simulator.stats.routeCallCount("discerner.analyze") == heldJobs, "a job was analysed twice: \(story)")
            }
        }
    }

    /// Returns once every worker has logged three failed heartbeats (their last ones are stale
    /// by more than the rescue rule allows), then freezes them: they cannot reconnect until the
    /// test resumes them, as workers on a starved machine would be slow to.
    static func silenced(_ workers: [WorkerProcess]) async throws {
        var missed = true
        for worker in workers where !(await worker.logged(where: { $0.components(separatedBy: "heartbeat failed").count > 3 })) {
            missed = false
        }
        try #require(missed, "the workers did not miss three heartbeats")
        workers.forEach { $0.pause() }
    }

    /// Workers whose session holds its lock: up and registered.
    static func presenceLocks(_ conninfo: String) async throws -> Int {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.value(
                """
                SELECT count(*) FROM pg_locks
                WHERE locktype = 'advisory' AND classid = \(Int(WorkerRegistry.presenceNamespace))::oid AND objsubid = 2 AND granted
                """, as: Int.self
            )
        }
    }

    static func runningOwner(_ conninfo: String) async throws -> String {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.rows("SELECT DISTINCT lease_owner FROM discern.jobs WHERE state = 'running'", as: String.self).first ?? ""
        }
    }

    /// The process id of a worker holding jobs, from its registry row.
    static func pidHoldingJobs(_ conninfo: String) async throws -> Int32? {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.rows(
                """
                SELECT w.pid FROM discern.jobs j JOIN discern.workers w ON w.id = j.lease_owner WHERE j.state = 'running' LIMIT 1
                """, as: Int?.self
            ).first?.flatMap { Int32(exactly: $0) }
        }
    }

    static func rescuedJobs(_ conninfo: String) async throws -> Int {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.value(
                """
                SELECT count(*) FROM discern.jobs WHERE error_history @> '[{"kind": "lease_expired"}]'
                """, as: Int.self
            )
        }
    }

    static func jobs(notHeldBy owner: String, _ conninfo: String) async throws -> Int {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.value("SELECT count(*) FROM discern.jobs WHERE lease_owner IS DISTINCT FROM \(owner)", as: Int.self)
        }
    }
}
