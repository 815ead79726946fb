import Foundation
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing

/// The database's weather in the middle of a night: a failover to a promoted standby, a disk that
/// fills up. Real worker processes; they wait and carry on by themselves.
@Suite("Chaos: the database's weather", .integrationTimeLimit)
struct DatabaseWeatherTests {
    static let workerArguments = ["--lease-seconds", "3", "--poll-seconds", "0.5", "--concurrency", "4", "--log-level", "notice"]
    static var script: String { ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path }

    @Test(
        "the primary crashes and its streaming standby is promoted in the middle of a run: the workers find it through a multi-host URL, nothing is lost, nothing dead, one result per job in the surviving database"
    )
    func failover() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.05
        // The analyses wait until the primary is gone, the workers holding jobs: the failover
        // then meets them whatever the machine's load (drained first, they would meet nothing).
        configuration.faults.holdAnalyses = true
        try await DatabaseChaosTests.withPrivateCluster { primaryURL, primaryFolder in
            let standbyFolder = primaryFolder.appendingPathComponent("standby")
            try await Self.withCluster(standbyFolder, start: ["standby", standbyFolder.path, primaryFolder.path]) { standbyURL in
                // As managed PostgreSQL hands it out: both hosts, and only the one that writes will do.
                let conninfo = try Self.multiHost(primaryURL, standbyURL)
                try await TestFolder.with { folder in
                    try await ChaosJobs.enqueue(400, into: conninfo, folder: folder)
                    try await TestSimulator.with(configuration) { simulator in
                        let workers = try (0..<3).map { _ in
                            try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments)
                        }
                        _ = try await Announcements.until(conninfo) { try await TestDatabase.census(conninfo).running >= 3 }
                        _ = try await Subprocess.run("/bin/bash", [Self.script, "stop", primaryFolder.path, "immediate"])
                        await simulator.releaseAnalyses()
                        _ = try await Subprocess.run("/bin/bash", [Self.script, "promote", standbyFolder.path])
                        let done = try await Announcements.until(conninfo) {
                            (try? await TestDatabase.census(conninfo)).map { $0.succeeded + $0.dead == 400 } ?? false
                        }
                        let died = workers.filter { !$0.isRunning }
                        let noticed = workers.filter { $0.output.contains("failed") }.count
                        await WorkerProcess.stopAll(workers)
                        let census = try await TestDatabase.census(conninfo)
                        let explained = ChaosJobs.FailureStory(
                            facts: "\(census)\n\(try await ChaosJobs.unfinishedJobs(conninfo))", folder: folder, test: "failover")
                        #expect(noticed > 0, "no worker met the failover: it came too late to test anything")
                        #expect(died.isEmpty, "a worker died instead of waiting for the new primary: \(explained)")
                        #expect(done, "not finished on the promoted standby: \(explained)")
                        #expect(census == QueueCensus(succeeded: 400, results: 400, jobsWithOneResult: 400), "\(explained)")
                        print("failover: \(census)")
                    }
                }
            }
        }
    }

    /// Starts a cluster with scripts/postgres.sh `start` arguments, runs `body` with its URL, and
    /// stops it however `body` ends.
    static func withCluster<T>(
        _ folder: URL, start: [String], environment: [String: String] = [:],
        _ body: (String) async throws -> T
    ) async throws -> T {
        let stop = { _ = try? await Subprocess.run("/bin/bash", [Self.script, "stop", folder.path]) }
        do {
            let url = try await Subprocess.run("/bin/bash", [Self.script] + start, environment: environment)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let value = try await body(url)
            await stop()
            return value
        } catch {
            await stop()
            throw error
        }
    }

    /// `postgresql://user@h1:p1,h2:p2/db?target_session_attrs=read-write` from two single-host URLs.
    static func multiHost(_ first: String, _ second: String) throws -> String {
        guard let a = URLComponents(string: first), let b = URLComponents(string: second), let pa = a.port, let pb = b.port,
            let host = a.host, let other = b.host, let user = a.user
        else { throw TestSetupError("not URLs: \(first) \(second)") }
        return "postgresql://\(user)@\(host):\(pa),\(other):\(pb)\(a.path)?target_session_attrs=read-write"
    }

    /// Waits on events only: the lock is taken before the worker starts and let go once the
    /// worker says a completion met it (or gave its results up, as it did before).
    @Test(
        "an operator's transaction locks the results table past the database's lock_timeout: completions wait and go through, every photo is analysed once, nothing dead"
    )
    func lockTimeoutOnCompletion() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(40, into: conninfo, folder: folder)
                // What a DBA sets so that nothing queues for long behind a lock.
                try await Database(conninfo: conninfo).withConnection {
                    try $0.execute("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET lock_timeout = %L', current_database(), '200ms'); END $$")
                }
                let holder = try Connection(conninfo: conninfo, applicationName: "test-operator")
                try holder.execute("BEGIN")
                try holder.execute("LOCK TABLE discern.results IN SHARE MODE")
                let simulator = SimulatorProcess(folder: folder)
                try await simulator.start(["--no-throughput-limits"])
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments)
                let met = await worker.logged { $0.contains("55P03") || $0.contains("could not write results") }
                try holder.execute("COMMIT")
                let done = await Announcements.until(conninfo) {
                    (try? await TestDatabase.census(conninfo)).map { $0.succeeded + $0.dead == 40 } ?? false
                }
                let calls = await simulator.calls("discerner.analyze")
                await WorkerProcess.stopAll([worker])
                await simulator.stop()
                let census = try await TestDatabase.census(conninfo)
                let explained = ChaosJobs.FailureStory(
                    facts: "\(census), \(calls) analyses\n\(try await ChaosJobs.unfinishedJobs(conninfo))",
                    folder: folder, test: "lock-timeout")
                #expect(met, "no completion met the lock: \(explained)")
                #expect(!worker.output.contains("could not write results"), "results were given up, to be analysed again: \(explained)")
                #expect(done && census == QueueCensus(succeeded: 40, results: 40, jobsWithOneResult: 40), "\(explained)")
                #expect(calls == 40, "a photo was analysed twice: \(explained)")
            }
        }
    }

    @Test("PostgreSQL's disk fills up in the middle of a run, and is freed: the workers wait and carry on, nothing lost, nothing dead")
    func fullDisk() async throws {
        guard let disk = await SmallDisk.mount(megabytes: 256) else {
            try Test.cancel("this machine lets the test mount no small file system (it needs root and mount(2))")
        }
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.05
        // The analyses wait until the disk is full, the workers holding jobs: on a loaded
        // machine they once finished all 600 before it filled, and met nothing.
        configuration.faults.holdAnalyses = true
        let cluster = disk.folder.appendingPathComponent("pg")
        do {
            // WAL kept small, so the disk holds the cluster with room left to fill.
            try await Self.withCluster(
                cluster, start: ["start", cluster.path],
                environment: ["PG_EXTRA_OPTIONS": "-c max_wal_size=64MB -c min_wal_size=32MB"]
            ) { url in
                try await Database(conninfo: url).withConnection { try Migrator.migrate($0) }
                try await TestFolder.with { folder in
                    try await ChaosJobs.enqueue(600, into: url, folder: folder)
                    try await TestSimulator.with(configuration) { simulator in
                        let workers = try (0..<2).map { _ in
                            try WorkerProcess(conninfo: url, simulatorURL: simulator.baseURL, logFolder: folder, arguments: Self.workerArguments)
                        }
                        _ = await Announcements.until(url) { (try? await TestDatabase.census(url))?.running ?? 0 >= 2 }
                        await disk.fill()
                        // Waits for what it means: the server met the full disk.
                        let met = await Poll.until { disk.serverLog(cluster).contains("No space left on device") }
                        // Now the jobs in hand finish, and their outcomes meet it.
                        await simulator.releaseAnalyses()
                        _ = await Poll.until { workers.contains { $0.output.contains("No space left on device") } }
                        try await Task.sleep(for: .seconds(DatabaseWeather.fullDiskSeconds))
                        disk.free()
                        // A supervisor (systemd's Restart=, Kubernetes) starts PostgreSQL again if it stopped.
                        _ = try? await Subprocess.run("/bin/bash", [Self.script, "resume", cluster.path])
                        let done = await Announcements.until(url) {
                            (try? await TestDatabase.census(url)).map { $0.succeeded + $0.dead == 600 } ?? false
                        }
                        let died = workers.filter { !$0.isRunning }
                        let waited = workers.filter { $0.output.contains("No space left on device") }.count
                        await WorkerProcess.stopAll(workers)
                        let census = try await TestDatabase.census(url)
                        let explained = ChaosJobs.FailureStory(
                            facts: "\(census)\n\(try await ChaosJobs.unfinishedJobs(url))", folder: folder, test: "full-disk")
                        #expect(met, "the disk never filled up for the server")
                        #expect(waited > 0, "no worker met the full disk: it came too late to test anything")
                        #expect(died.isEmpty, "a worker died instead of waiting: \(explained)")
                        #expect(done, "not finished: \(explained)")
                        #expect(census == QueueCensus(succeeded: 600, results: 600, jobsWithOneResult: 600), "\(explained)")
                        print("full disk: \(census)")
                    }
                }
            }
            await disk.unmount()
        } catch {
            await disk.unmount()
            throw error
        }
    }
}

enum DatabaseWeather {
    /// How long the disk stays full once the server met it (DISCERN_TEST_FULL_DISK_SECONDS, default 15).
    static var fullDiskSeconds: Double {
        ProcessInfo.processInfo.environment["DISCERN_TEST_FULL_DISK_SECONDS"].flatMap(Double.init).map { max(1, $0) } ?? 15
    }
}

/// A small tmpfs for one test, to fill up: mounted under the temporary folder, unmounted after
/// whatever used it has stopped. Its commands run as processes, off the cooperative pool.
final class SmallDisk: Sendable {
    let folder: URL

    private init(folder: URL) { self.folder = folder }

    /// nil where the machine lets the test mount nothing (not root, no mount(2)).
    static func mount(megabytes: Int) async -> SmallDisk? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-disk-\(TestRun.id)-\(UUID().uuidString.prefix(8))")
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)) != nil,
            (try? await Subprocess.runWithStatus("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=755", "tmpfs", folder.path]))?.status
                == 0
        else {
            try? FileManager.default.removeItem(at: folder)
            return nil
        }
        return SmallDisk(folder: folder)
    }

    /// Takes every free byte: megabytes first, then what is left a page at a time.
    func fill() async {
        let filler = folder.appendingPathComponent("filler").path
        _ = try? await Subprocess.runWithStatus(
            "/bin/sh", ["-c", #"cat /dev/zero > "$1"; dd if=/dev/zero of="$1.tail" bs=4096 2>/dev/null; true"#, "sh", filler])
    }

    func free() {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("filler"))
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("filler.tail"))
    }

    /// The server log of a cluster made by scripts/postgres.sh in `cluster`.
    func serverLog(_ cluster: URL) -> String {
        (try? String(contentsOf: cluster.appendingPathComponent("data/server.log"), encoding: .utf8)) ?? ""
    }

    func unmount() async {
        _ = try? await Subprocess.runWithStatus("/bin/umount", [folder.path])
        try? FileManager.default.removeItem(at: folder)
    }
}
