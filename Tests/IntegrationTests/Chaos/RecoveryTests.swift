import Foundation
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// Recovery with the shipped settings (30 s leases renewed every 10 s, the worker registry):
/// what an independent chaos run does to discern (issue 14).
@Suite("Chaos: recovery with default settings")
struct RecoveryTests {
    /// How long the run took depends on the machine (bench/scale measures recovery speed); what
    /// must hold whatever the load is that 20 kills and a restart lose and double nothing. The
    /// chaos goes on for 20 kills, however long they take; ten minutes is only the test's own
    /// limit against hanging.
    @Test("3 workers with defaults, a SIGKILL every 2 s for 20 kills and one PostgreSQL restart: 300 jobs succeed exactly once")
    func killsAndRestartWithDefaults() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 8  // as the real Image Discerner: jobs are in flight when killed
        try await DatabaseChaosTests.withPrivateCluster { conninfo, clusterFolder in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(300, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let started = Date()
                    var workers = try (0..<3).map { _ in try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder) }
                    var kills = 0, restarted = false
                    let script = ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path
                    func finished() async -> Bool {
                        guard let census = try? await TestDatabase.census(conninfo) else { return false }
                        return census.succeeded + census.dead == 300
                    }
                    while kills < 20, Date().timeIntervalSince(started) < 600, !(await finished()) {
                        try await Task.sleep(for: .seconds(2))
                        let victim = Int.random(in: 0..<workers.count)
                        workers[victim].kill()
                        kills += 1
                        workers[victim] = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder)
                        if !restarted, kills == 10 {
                            _ = try await Subprocess.run("/bin/bash", [script, "restart", clusterFolder.path, "immediate"])
                            restarted = true
                        }
                    }
                    _ = await ChaosJobs.eventually(seconds: max(0, 600 - Date().timeIntervalSince(started))) { await finished() }
                    let elapsed = Date().timeIntervalSince(started)
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    let expected = QueueCensus(succeeded: 300, results: 300, jobsWithOneResult: 300)
                    let explained = census == expected ? ""
                        : "\(try await ChaosJobs.unfinishedJobs(conninfo))\nworker logs: \(ChaosJobs.keepLogs(of: folder, test: "chaos-recovery"))"
                    #expect(census == expected, "\(census) after \(kills) kills and \(Int(elapsed)) s\n\(explained)")
                    #expect(kills == 20 && restarted, "the jobs finished before the chaos did: \(kills) kills")
                }
            }
        }
    }

    /// The registry's rule (three missed heartbeats) takes about 40 s with the defaults; on a
    /// loaded machine it may take longer, but it must act before the lease runs out: that order
    /// of events, read from the jobs' own history, is what is checked.
    @Test("a SIGKILLed worker's jobs run again long before their leases would have let them: the registry rescues them")
    func killedWorkersJobsReturn() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 600  // the first worker never finishes a call
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(4, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    // A long lease: only the registry can bring the jobs back in time.
                    let first = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                                                  arguments: ["--lease-seconds", "600"])
                    let claimed = try await ChaosJobs.eventually(seconds: 300) { try await TestDatabase.census(conninfo).running == 4 }
                    #expect(claimed)
                    let owner = try await Self.runningOwner(conninfo)
                    first.kill()
                    let killed = Date()
                    let rescuer = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder)
                    let back = try await ChaosJobs.eventually(seconds: 600) { try await Self.jobs(notHeldBy: owner, conninfo) == 4 }
                    let seconds = Date().timeIntervalSince(killed)
                    await WorkerProcess.stopAll([rescuer])
                    #expect(back, "the killed worker's jobs did not come back")
                    let rescues = try await Database(conninfo: conninfo, name: "test-report").rows("""
                        SELECT error_history->0->>'kind' AS kind,
                               (error_history->0->>'at')::timestamptz < created_at + interval '590 seconds' AS before_lease_end
                        FROM discern.jobs
                        """)
                    #expect(try rescues.map { try $0.optionalString("kind") ?? "-" } == Array(repeating: "lease_expired", count: 4))
                    #expect(try rescues.allSatisfy { try $0.bool("before_lease_end") }, "came back after \(Int(seconds)) s: by the lease, not the registry")
                }
            }
        }
    }

    static func runningOwner(_ conninfo: String) async throws -> String {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.query("SELECT DISTINCT lease_owner FROM discern.jobs WHERE state = 'running'").first?.string("lease_owner") ?? ""
        }
    }

    static func jobs(notHeldBy owner: String, _ conninfo: String) async throws -> Int {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.query("SELECT count(*) AS n FROM discern.jobs WHERE lease_owner IS DISTINCT FROM $1", [owner]).first?.int("n") ?? 0
        }
    }

}
