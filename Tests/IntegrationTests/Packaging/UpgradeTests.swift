import Foundation
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// An upgrade in the middle of a night, as a rollout does it: the previous release's workers
/// drain a queue, this release's `discern migrate` runs beside them, a fresh worker of the old
/// release still starts (a rollout scales up before it replaces), this release's workers join,
/// the old ones stop. The previous release is the one CHANGELOG.md names, built from its commit
/// by scripts/test.sh (DISCERN_PREVIOUS_BINARY).
@Suite("Upgrades beside live workers", .integrationTimeLimit)
struct UpgradeTests {
    static var previous: URL {
        get throws {
            guard let path = ProcessInfo.processInfo.environment["DISCERN_PREVIOUS_BINARY"], FileManager.default.isExecutableFile(atPath: path) else {
                throw TestSetupError("DISCERN_PREVIOUS_BINARY is not set: run the tests with scripts/test.sh, which builds the previous release")
            }
            return URL(fileURLWithPath: path)
        }
    }

    static let jobs = 600
    static let workerArguments = ["--concurrency", "4", "--log-level", "warning"]

    @Test(
        "the previous release's workers beside this release's migrate: no error in their logs, a fresh old worker starts, every job succeeds once, none dead"
    )
    func migrateBesideOldWorkers() async throws {
        let old = try Self.previous
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.05
        // The old workers' analyses wait until the migration is done, their jobs in hand: on a
        // loaded machine they once finished all 600 before it, leaving nothing to carry on with.
        configuration.faults.holdAnalyses = true
        try await TestDatabase.with(migrated: false) { conninfo in
            try await TestFolder.with { folder in
                let oldMigrate = try await Subprocess.runWithStatus(old.path, ["migrate", "--database-url", conninfo])
                try #require(oldMigrate.status == 0, "the previous release's migrate: \(oldMigrate.output)")
                try await ChaosJobs.enqueue(Self.jobs, into: conninfo, folder: folder)
                try await TestSimulator.with(configuration) { simulator in
                    var oldWorkers = try (0..<2).map { _ in
                        try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments, binary: old)
                    }
                    let started = try await Poll.until { try await TestDatabase.census(conninfo).running >= 2 }
                    try #require(started, "the previous release's workers did not start working")

                    let migrate = try await Subprocess.runWithStatus(try WorkerProcess.binary.path, ["migrate", "--database-url", conninfo])
                    #expect(migrate.status == 0, "this release's migrate beside them: \(migrate.output)")
                    let before = try await TestDatabase.census(conninfo).succeeded
                    await simulator.releaseAnalyses()
                    let oldCarryOn = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).succeeded >= before + 50 }
                    #expect(oldCarryOn, "the previous release's workers stopped completing after the migration")

                    oldWorkers.append(
                        try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                            arguments: Self.workerArguments, binary: old))
                    let newWorkers = try (0..<2).map { _ in
                        try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments)
                    }
                    // The new ones are up (registered with their presence key) before the old ones go;
                    // counted by their pids, as a previous release's workers may hold presence keys too.
                    let newPids = newWorkers.map(\.pid)
                    let newUp = try await Announcements.until(conninfo) {
                        try await Self.workersWithPresence(conninfo, pids: newPids) == newPids.count
                    }
                    #expect(newUp, "this release's workers did not register")
                    let freshOldRan = oldWorkers.last?.isRunning ?? false
                    await WorkerProcess.stopAll(oldWorkers)
                    let done = try await ChaosJobs.finished(conninfo, total: Self.jobs)
                    await WorkerProcess.stopAll(newWorkers)

                    let census = try await TestDatabase.census(conninfo)
                    let story = ChaosJobs.FailureStory(
                        facts: "\(census)\n\(try await ChaosJobs.unfinishedJobs(conninfo))", folder: folder, test: "upgrade")
                    #expect(
                        freshOldRan,
                        "a fresh worker of the previous release did not stay up after the migration: \(oldWorkers.last?.output.suffix(2000) ?? "")")
                    for worker in oldWorkers {
                        let errors = worker.output.split(separator: "\n").filter { $0.contains("level=error") || $0.hasPrefix("error:") }
                        #expect(errors.isEmpty, "the previous release's worker logged errors: \(errors.prefix(5))")
                        #expect(worker.exitStatus == 0, "the previous release's worker exited \(String(describing: worker.exitStatus))")
                    }
                    #expect(done, "not finished: \(story)")
                    #expect(census == QueueCensus(succeeded: Self.jobs, results: Self.jobs, jobsWithOneResult: Self.jobs), "\(story)")
                }
            }
        }
    }

    @Test("a worker older than a migration marked breaking refuses to start, in one line, with exit status 76; migrate --status names it")
    func breakingMigrationStopsOlderWorkers() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await Database(conninfo: conninfo).withConnection { connection in
                    try connection.execute("INSERT INTO discern.schema_migrations (version, name, breaking) VALUES (9999, 'from_the_future', true)")
                }
                let worker = try WorkerProcess(conninfo: conninfo, simulatorURL: "http://127.0.0.1:9", logFolder: folder)
                let exited = await worker.waitForExit()
                #expect(exited && worker.exitStatus == 76, "exit \(String(describing: worker.exitStatus)): \(worker.output)")
                let lines = worker.output.split(separator: "\n").filter { $0.hasPrefix("error:") }
                #expect(lines.count == 1 && lines[0].contains("9999") && lines[0].contains("upgrade discern"), "\(worker.output)")
                let status = try await Subprocess.runWithStatus(try WorkerProcess.binary.path, ["migrate", "--status", "--database-url", conninfo])
                #expect(status.output.contains("newer: migration 9999 (from_the_future)") && status.output.contains("breaking"), "\(status.output)")
            }
        }
    }

    @Test(
        "migrate --status exits 1 while migrations are pending; the SQL of migrate --sql, applied with psql, leaves nothing pending and a worker may start"
    )
    func sqlForDatabaseAdministrators() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            try await TestFolder.with { folder in
                let binary = try WorkerProcess.binary.path
                let pending = try await Subprocess.runWithStatus(binary, ["migrate", "--status", "--database-url", conninfo])
                #expect(pending.status == 1 && pending.output.contains("pending: migration \(Migrator.schemaVersion)"), "\(pending.output)")
                let sql = try await Subprocess.run(binary, ["migrate", "--sql", "--database-url", conninfo])
                let file = folder.appendingPathComponent("migrate.sql")
                try sql.write(to: file, atomically: true, encoding: .utf8)
                let applied = try await Subprocess.runWithStatus(
                    "/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-f", file.path])
                #expect(applied.status == 0, "psql: \(applied.output.suffix(2000))")
                let after = try await Subprocess.runWithStatus(binary, ["migrate", "--status", "--database-url", conninfo])
                #expect(after.status == 0 && after.output.contains("up to date"), "\(after.output)")
                try await Database(conninfo: conninfo).withConnection { try Migrator.requireCurrent($0) }
                let again = try await Subprocess.run(binary, ["migrate", "--database-url", conninfo])
                #expect(again.contains("schema is up to date"), "\(again)")
            }
        }
    }

    static func workersWithPresence(_ conninfo: String, pids: [Int32]) async throws -> Int {
        return try await Database(conninfo: conninfo).withConnection { connection in
            try connection.value(
                "SELECT count(*) FROM discern.workers WHERE presence_key IS NOT NULL AND stopped_at IS NULL AND pid = ANY(\(pids)::integer[])",
                as: Int.self)
        }
    }
}
