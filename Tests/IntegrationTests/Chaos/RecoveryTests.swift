import Foundation
import JobQueue
import Postgres
import Simulator
import Testing

/// Recovery with the shipped settings (30 s leases renewed every 10 s, the worker registry):
/// what an independent chaos run does to discern (issue 14).
@Suite("Chaos: recovery with default settings")
struct RecoveryTests {
    @Test("3 workers with defaults, a SIGKILL every 2 s and one PostgreSQL restart: 300 jobs succeed exactly once within 4 minutes")
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
                    while Date().timeIntervalSince(started) < 240 {
                        let census = try? await TestDatabase.census(conninfo)
                        if let census, census.succeeded + census.dead == 300 { break }
                        try await Task.sleep(for: .seconds(2))
                        if Date().timeIntervalSince(started) < 60 {
                            let victim = Int.random(in: 0..<workers.count)
                            workers[victim].kill()
                            kills += 1
                            workers[victim] = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder)
                        }
                        if !restarted, Date().timeIntervalSince(started) > 20 {
                            _ = try await Subprocess.run("/bin/bash", [script, "restart", clusterFolder.path, "immediate"])
                            restarted = true
                        }
                    }
                    let elapsed = Date().timeIntervalSince(started)
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census == QueueCensus(succeeded: 300, results: 300, jobsWithOneResult: 300), "\(census) after \(kills) kills")
                    #expect(elapsed < 240, "took \(Int(elapsed)) s")
                    #expect(kills >= 20 && restarted)
                }
            }
        }
    }

    @Test("a SIGKILLed worker's jobs run again within 60 s, long before their leases would have let them")
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
                    let claimed = try await ChaosJobs.eventually(seconds: 30) { try await TestDatabase.census(conninfo).running == 4 }
                    #expect(claimed)
                    let owner = try await Self.runningOwner(conninfo)
                    first.kill()
                    let killed = Date()
                    let rescuer = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder)
                    let back = try await ChaosJobs.eventually(seconds: 75) { try await Self.jobs(notHeldBy: owner, conninfo) == 4 }
                    let seconds = Date().timeIntervalSince(killed)
                    await WorkerProcess.stopAll([rescuer])
                    #expect(back && seconds < 60, "the killed worker's jobs came back after \(Int(seconds)) s")
                    let kinds = try await Self.firstFailureKinds(conninfo)
                    #expect(Set(kinds) == ["lease_expired"], "\(kinds)")
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

    static func firstFailureKinds(_ conninfo: String) async throws -> [String] {
        try await Database(conninfo: conninfo).withConnection { connection in
            try connection.query("SELECT error_history->0->>'kind' AS kind FROM discern.jobs").map { try $0.optionalString("kind") ?? "-" }
        }
    }
}
