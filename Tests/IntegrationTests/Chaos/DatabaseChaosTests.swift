import Foundation
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// The database goes away under the workers: they reconnect and finish, losing nothing.
@Suite("Chaos: database", .integrationTimeLimit)
struct DatabaseChaosTests {
    static let workerArguments = ["--lease-seconds", "3", "--poll-seconds", "0.2", "--concurrency", "4"]

    /// A private cluster for one test, since restarting the shared one would disturb the others.
    static func withPrivateCluster<T>(_ body: (String, URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-chaos-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let script = ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path
        func cleanUp() async {
            _ = try? await Subprocess.run("/bin/bash", [script, "stop", folder.path])
            try? FileManager.default.removeItem(at: folder)
        }
        do {
            let url = try await Subprocess.run("/bin/bash", [script, "start", folder.path]).trimmingCharacters(in: .whitespacesAndNewlines)
            try await Database(conninfo: url).withConnection { try Migrator.migrate($0) }
            let value = try await body(url, folder)
            await cleanUp()
            return value
        } catch {
            await cleanUp()
            throw error
        }
    }

    @Test("PostgreSQL restarts in the middle of a run: workers reconnect and finish, nothing is lost")
    func restartPostgres() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.05
        try await Self.withPrivateCluster { conninfo, clusterFolder in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(400, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let workers = try (0..<3).map { _ in
                        try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments)
                    }
                    _ = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).succeeded >= 50 }
                    let script = ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path
                    _ = try await Subprocess.run("/bin/bash", [script, "restart", clusterFolder.path, "immediate"])
                    let done = try await Announcements.until(conninfo) {
                        (try? await TestDatabase.census(conninfo)).map { $0.succeeded + $0.dead == 400 } ?? false
                    }
                    let died = workers.filter { !$0.isRunning }
                    #expect(
                        died.isEmpty,
                        "a worker died instead of reconnecting (exit \(died.map { String(describing: $0.exitStatus) })): \(died.map { $0.output.suffix(2000) })"
                    )
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    #expect(done, "not finished: \(census)")
                    #expect(census == QueueCensus(succeeded: 400, results: 400, jobsWithOneResult: 400), "\(census)")
                }
            }
        }
    }

    @Test("pg_terminate_backend on the workers' connections every second: nothing is lost")
    func terminateBackends() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.05
        // The analyses wait until connections have been terminated six times: on a loaded
        // machine the workers once drained all 400 jobs before the killer's first look.
        configuration.faults.holdAnalyses = true
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(400, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    let workers = try (0..<3).map { _ in
                        try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments)
                    }
                    let killer = Database(conninfo: conninfo, name: "test-killer")
                    var terminated = 0
                    var released = false
                    let done = try await Poll.until {
                        terminated += try await killer.rows(
                            """
                            SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity
                            WHERE datname = current_database() AND application_name LIKE 'discern%'
                            """, as: Bool.self
                        ).count
                        if !released && terminated >= 6 {
                            await simulator.releaseAnalyses()
                            released = true
                        }
                        try await Task.sleep(for: .seconds(1))
                        let census = try await TestDatabase.census(conninfo)
                        return census.succeeded + census.dead == 400
                    }
                    let died = workers.filter { !$0.isRunning }
                    #expect(
                        died.isEmpty,
                        "a worker died instead of reconnecting (exit \(died.map { String(describing: $0.exitStatus) })): \(died.map { $0.output.suffix(2000) })"
                    )
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    #expect(done, "not finished: \(census)")
                    #expect(terminated >= 6, "too few connections were terminated to prove anything")
                    #expect(census == QueueCensus(succeeded: 400, results: 400, jobsWithOneResult: 400), "\(census)")
                }
            }
        }
    }
}
