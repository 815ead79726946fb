import Foundation
import Postgres
import Simulator
import TestFixtures
import Testing

/// A worker holds three connections at most (WorkerConnections), and runs behind Debian's
/// PgBouncer 1.18 in transaction mode: no named prepared statements, LISTEN over a direct URL
/// or polling.
@Suite("Connection budget", .integrationTimeLimit)
struct ConnectionBudgetTests {
    @Test("one worker at concurrency 16 never holds more than 3 connections")
    func threeConnectionsAtMost() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(300, into: conninfo, folder: folder)
                // The analyses wait until the worker has been seen with its connections open: on a
                // loaded machine it can drain all 300 before the observer's first look (it "held 0").
                var configuration = SimulatorConfiguration.unthrottled
                configuration.faults.holdAnalyses = true
                try await TestSimulator.with(configuration) { simulator in
                    let observer = Database(conninfo: conninfo, name: "test-observer")
                    try await observer.execute("SELECT 1")
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--drain", "--concurrency", "16", "--no-progress"])
                    // Every client connection to this database but the test's own. Set-up connections are named
                    // test-* too, so one still closing when the worker starts is not the worker's; autovacuum
                    // workers (backend_type 'autovacuum worker', no application name) are the server's own.
                    var most: [String] = []
                    var released = false
                    while worker.isRunning {
                        let seen = try await observer.rows(
                            """
                            SELECT pid, application_name AS name, state, backend_start, left(query, 80) AS query FROM pg_stat_activity
                            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                              AND application_name NOT LIKE 'test-%'
                            ORDER BY backend_start
                            """, as: Int.self, String?.self, String?.self, String?.self, String?.self
                        ).map { pid, name, state, backendStart, query in
                            "\(pid) \(name ?? "-") [\(state ?? "-")] since \(backendStart ?? "-"): \(query ?? "")"
                        }
                        if seen.count > most.count { most = seen }
                        // Held, the worker has claimed, listens and beats: from here it writes too.
                        if !released && seen.count >= 2 {
                            await simulator.releaseAnalyses()
                            released = true
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    // Not running is not yet reaped with its output copied (`exitStatus` is nil until both).
                    #expect(await worker.waitForExit())
                    #expect(worker.exitStatus == 0, "\(worker.output.suffix(2000))")
                    #expect(
                        most.count >= 2 && most.count <= 3,
                        "the worker held \(most.count) connections at once:\n\(most.joined(separator: "\n"))\n\(worker.output.suffix(2000))")
                    #expect(try await TestDatabase.census(conninfo) == QueueCensus(succeeded: 300, results: 300, jobsWithOneResult: 300))
                }
            }
        }
    }

    @Test("without prepared statements a session keeps none (what a transaction pooler needs)")
    func noNamedStatementsBehindAPooler() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, session: SessionOptions(poolMode: .transaction))
            let kept = try await database.withConnection { connection in
                try connection.run(One(n: 1))
                return try connection.value("SELECT count(*)::int FROM pg_prepared_statements", as: Int.self)
            }
            #expect(kept == 0)
        }
    }

    /// A statement sent the way those of sql/queries/ are (`TypedStatement`): prepared once per
    /// session, unless the session keeps no prepared statements.
    private struct One: TypedStatement {
        static var text: String { "SELECT $1::int AS n" }
        let n: Int
        var parameters: [(any PostgresEncodable)?] { [n] }
        static func output(_ row: Row) throws -> Int { try row.decode(Int.self) }
    }

    @Test("two workers through PgBouncer in transaction mode drain a batch: one LISTENs directly, one polls; nothing lost or doubled")
    func drainThroughPgBouncer() async throws {
        try await TestDatabase.with { conninfo in
            try await PgBouncer.with(frontOf: conninfo) { pooled in
                try await TestFolder.with { folder in
                    try await ChaosJobs.enqueue(400, into: conninfo, folder: folder)
                    try await TestSimulator.with(.unthrottled) { simulator in
                        let common = [
                            "--drain", "--pool-mode", "transaction", "--concurrency", "8", "--poll-seconds", "0.5", "--no-progress",
                            "--log-format", "json", "--log-level", "info"
                        ]
                        let workers = try [
                            WorkerProcess(
                                conninfo: pooled, simulatorURL: simulator.baseURL, logFolder: folder,
                                arguments: common + ["--listen-database-url", conninfo]),
                            WorkerProcess(conninfo: pooled, simulatorURL: simulator.baseURL, logFolder: folder, arguments: common)
                        ]
                        for worker in workers {
                            await worker.expectExit()
                            #expect(worker.exitStatus == 0, "\(worker.output.suffix(2000))")
                            #expect(!worker.output.contains("prepared statement"), "\(worker.output.suffix(2000))")
                        }
                        #expect(workers[0].output.contains(#""new_jobs":"LISTEN""#))
                        #expect(workers[1].output.contains(#""new_jobs":"polled every 0.5 s""#))
                        let census = try await TestDatabase.census(conninfo)
                        #expect(census == QueueCensus(succeeded: 400, results: 400, jobsWithOneResult: 400), "\(census)")
                    }
                }
            }
        }
    }
}
