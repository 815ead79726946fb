import CurlHTTP
import Foundation
import JobQueue
import Postgres
import QueueReads
import Simulator
import TestFixtures
import Testing

/// What operations watch: the probes of a real worker process, a real Prometheus scraping a
/// worker and the queue monitor with the shipped alerting rules, and promtool on the metrics.
@Suite("Monitoring", .integrationTimeLimit)
struct MonitoringTests {
    static let http = CurlHTTPClient(configuration: .init(threads: 1))

    static func get(_ port: Int, _ path: String) async -> (status: Int, body: String) {
        guard let response = try? await http.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)\(path)", timeoutSeconds: 5)) else {
            return (0, "")
        }
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test("probes: ready while PostgreSQL answers; while it is down not ready but still live; not ready once SIGTERM arrives")
    func workerProbes() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        // The last job's analysis outlasts the 20 s grace period, however slow the machine: the
        // worker is seen shutting down for all of it (an 8 s analysis could end before a starved
        // test looked).
        configuration.faults.analyzeDelaySeconds = 3600
        try await DatabaseChaosTests.withPrivateCluster { conninfo, cluster in
            try await TestFolder.with { folder in
                try await TestSimulator.with(configuration) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: [
                            "--metrics-port", "0", "--log-level", "notice", "--log-format", "json", "--lease-seconds", "3", "--grace-seconds", "20"
                        ])
                    defer { worker.kill() }
                    let port = try #require(await worker.announcedMetricsPort(), "\(worker.output.suffix(500))")
                    #expect(await Poll.until { await Self.get(port, "/readyz").status == 200 })
                    #expect(await Self.get(port, "/healthz").status == 200)

                    let script = ChaosJobs.repository.appendingPathComponent("scripts/postgres.sh").path
                    _ = try await Subprocess.run("/bin/bash", [script, "stop", cluster.path])
                    #expect(await Poll.until { await Self.get(port, "/readyz").status == 503 })
                    let down = await Self.get(port, "/readyz")
                    #expect(down.body.contains("PostgreSQL"), "the probe says why: \(down.body)")
                    #expect(await Self.get(port, "/healthz").status == 200, "a database outage is not a reason to restart the worker")

                    _ = try await Subprocess.run("/bin/bash", [script, "resume", cluster.path])
                    #expect(await Poll.until { await Self.get(port, "/readyz").status == 200 })

                    // A slow job in flight keeps the process in its grace period after SIGTERM.
                    try await ChaosJobs.enqueue(1, into: conninfo, folder: folder)
                    #expect(
                        await Announcements.until(conninfo) {
                            (try? await Database(conninfo: conninfo).rows("SELECT 1 FROM discern.jobs WHERE state = 'running'", as: Int.self).count)
                                == 1
                        })
                    worker.terminate()
                    #expect(await Poll.until { await Self.get(port, "/readyz").status == 503 })
                    #expect(await Self.get(port, "/readyz").body.contains("shutting down"))
                    await worker.expectExit()
                }
            }
        }
    }

    @Test("a real Prometheus scrapes a worker and the monitor; the rules load; with every worker gone the queue alerts still see the backlog")
    func prometheusScrapes() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(3, into: conninfo, folder: folder)
                try await TestSimulator.with(.unthrottled) { simulator in
                    let json = ["--metrics-port", "0", "--log-level", "notice", "--log-format", "json"]
                    let worker = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: json)
                    defer { worker.kill() }
                    let monitor = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: "", logFolder: folder,
                        arguments: [
                            "--database-url", conninfo, "--interval", "1", "--plan-until", Date().addingTimeInterval(3600).formatted(.iso8601)
                        ] + json,
                        plainArguments: true, command: "monitor")
                    defer { monitor.kill() }
                    let workerPort = try #require(await worker.announcedMetricsPort(), "\(worker.output.suffix(500))")
                    let monitorPort = try #require(await monitor.announcedMetricsPort(), "\(monitor.output.suffix(500))")

                    for port in [workerPort, monitorPort] {
                        _ = await Poll.until { await Self.get(port, "/metrics").body.contains("discern_queue_") }
                        let file = folder.appendingPathComponent("metrics-\(port).txt")
                        try Data(await Self.get(port, "/metrics").body.utf8).write(to: file)
                        let lint = try await Subprocess.runWithStatus("/bin/bash", ["-c", "promtool check metrics < '\(file.path)'"])
                        #expect(lint.status == 0 && lint.output.isEmpty, "promtool check metrics, port \(port): \(lint.output)")
                    }

                    try await PrometheusServer.with(targets: ["discern-worker": workerPort, "discern-monitor": monitorPort]) { prometheus in
                        #expect(await Poll.until { (try? await prometheus.query("sum(up)"))?.first.map(Self.value) == 2 })
                        let info = try await prometheus.query("discern_build_info")
                        // The version the binary says it is: a release, or a build after one (0.10.0+git...).
                        let built = try await Subprocess.run(try WorkerProcess.binary.path, ["version", "--format", "json"])
                        let version = try #require(try Packaging.versionReport(built)["version"] as? String)
                        #expect(info.contains { ($0["metric"] as? [String: String])?["version"] == version }, "\(version): \(info)")
                        #expect(
                            await Poll.until {
                                (try? await prometheus.query(#"sum(discern_jobs_total{outcome="succeeded"})"#))?.first.map(Self.value) == 3
                            })
                        let rules = try await prometheus.get("/api/v1/rules")
                        let groups = ((rules["data"] as? [String: Any])?["groups"] as? [[String: Any]]) ?? []
                        let loaded = groups.flatMap { ($0["rules"] as? [[String: Any]]) ?? [] }
                        #expect(
                            loaded.count == 12 && loaded.allSatisfy { $0["health"] as? String != "err" },
                            "\(loaded.map { ($0["name"] ?? "", $0["health"] ?? "", $0["lastError"] ?? "") })")

                        // Every worker gone, new jobs waiting: the monitor alone answers the alerts' question.
                        worker.terminate()
                        _ = await worker.waitForExit()
                        try await ChaosJobs.enqueue(4, into: conninfo, folder: folder)
                        let unserved =
                            #"sum by (service) (discern_queue_jobs{state="waiting"}) > 0 and sum by (service) (discern_queue_live_workers) == 0"#
                        #expect(
                            await Poll.until {
                                let result = (try? await prometheus.query(unserved)) ?? []
                                return result.count == 1 && (result.first?["metric"] as? [String: String])?["service"] == "discerner"
                                    && result.first.map(Self.value) == 4
                            })
                        // The night's forecast from the read model: with no worker, none of the 4 finishes in the window, never.
                        #expect(
                            await Poll.until {
                                (try? await prometheus.query(#"discern_plan_unfinished_jobs{service="discerner"}"#))?.first.map(Self.value) == 4
                            })
                        let late = try await prometheus.query(#"discern_plan_finish_seconds{service="discerner",bound="late"}"#)
                        #expect(late.first.map(Self.value) == .infinity, "\(late)")
                        // The label's name before 0.11 rides along until 0.12, so a dashboard of the old
                        // release still reads the same series.
                        #expect((late.first?["metric"] as? [String: String])?["backend"] == "discerner", "\(late)")
                    }
                }
            }
        }
    }

    @Test(
        "the oldest transaction holding back vacuum is exported: a report left open, a write left uncommitted; gone once they end; unknown, not 0, when the owner cannot see other sessions"
    )
    func oldestSnapshot() async throws {
        try await TestDatabase.with { conninfo in
            let reader = try await QueueReader(conninfo: conninfo, connections: 1, name: "test-monitor")
            func held() async throws -> Double? { try await reader.gauges(services: ["discerner"], until: nil).oldestSnapshotSeconds }
            #expect(try await held() == 0)
            let session = Database(conninfo: conninfo, name: "test-long-report")
            // A report left open in REPEATABLE READ: its snapshot holds from its first query on.
            try await session.withConnection { connection in
                try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                try connection.execute("SELECT count(*) FROM discern.jobs")
            }
            #expect(try await held() ?? 0 > 0, "the open report is seen")
            try await session.withConnection { _ = try $0.execute("COMMIT") }
            #expect(try await held() == 0, "gone once it ends")
            // A write left uncommitted in READ COMMITTED holds no snapshot between statements, but
            // its transaction id holds back vacuum all the same.
            try await session.withConnection { connection in
                try connection.execute("BEGIN")
                try connection.execute("INSERT INTO discern.batches (name) VALUES ('left open')")
            }
            #expect(try await held() ?? 0 > 0, "the uncommitted write is seen")
            try await session.withConnection { _ = try $0.execute("ROLLBACK") }
            #expect(try await held() == 0)

            // Readers call it and get a number, the enqueue role may not; an owner without
            // pg_read_all_stats gives NULL.
            let blind = "blind_\(UUID().uuidString.prefix(8).lowercased())"
            let (asReader, asEnqueuer, asBlind) = try await session.withConnection { connection -> (String?, String?, String?) in
                // Put back whatever happens: the role is the cluster's, not the test database's.
                defer {
                    _ = try? connection.execute("RESET ROLE")
                    _ = try? connection.execute("ALTER FUNCTION discern.oldest_snapshot_seconds() OWNER TO CURRENT_USER")
                    _ = try? connection.execute("DROP ROLE IF EXISTS \(unescaped: blind)")
                }
                try connection.execute("SET ROLE discern_reader")
                let number = try connection.value("SELECT discern.oldest_snapshot_seconds()::text", as: String?.self)
                try connection.execute("SET ROLE discern_enqueue")
                let refused: String?
                do {
                    _ = try connection.execute("SELECT discern.oldest_snapshot_seconds()")
                    refused = nil
                } catch let error as PostgresError {
                    refused = error.sqlState
                }
                try connection.execute("RESET ROLE")
                try connection.execute("CREATE ROLE \(unescaped: blind) NOLOGIN")
                try connection.execute("ALTER FUNCTION discern.oldest_snapshot_seconds() OWNER TO \(unescaped: blind)")
                let none = try connection.value("SELECT discern.oldest_snapshot_seconds()::text", as: String?.self)
                return (number, refused, none)
            }
            #expect(asReader == "0" && asBlind == nil, "\(String(describing: asReader)), \(String(describing: asBlind))")
            #expect(asEnqueuer == "42501", "the enqueue role may not look: \(String(describing: asEnqueuer))")
        }
    }

    /// The number of an instant-query sample (`"value": [time, "4"]`).
    static func value(_ sample: [String: Any]) -> Double {
        ((sample["value"] as? [Any])?.last as? String).flatMap(Double.init) ?? .nan
    }
}
