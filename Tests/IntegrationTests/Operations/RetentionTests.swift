import Foundation
import JobQueue
import Postgres
import SampleImages
import TestFixtures
import Testing

/// Retention by kind of data and by service: the nightly prune drops a biometric service's raw
/// answers after their period (30 days by default) and keeps the results' typed columns; a
/// service's own results period deletes its results; the dashboards' roll-ups count the same.
@Suite("Retention", .integrationTimeLimit)
struct RetentionTests {
    @Test(
        "discern prune drops OOTO's raw answers after 30 days by default, keeping subject, outcome and confidence; Image Discerner's stay; a results period deletes a service's results; the roll-ups are unchanged"
    )
    func rawAnswersByService() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo), discern = try WorkerProcess.binary.path
                let faces = try (0..<6).map { try folder.write(SampleImages.photo(width: 240, height: 240, seed: 9700 + $0), as: "face-\($0).jpg") }
                let cars = try (0..<6).map { try folder.write(SampleImages.photo(width: 160, height: 120, seed: 9800 + $0), as: "car-\($0).jpg") }
                try await database.withConnection { connection in
                    for (index, face) in faces.enumerated() {
                        try JobQueue.enqueue(
                            connection, paths: [face], service: "ooto", action: "enroll", paramsJSON: #"{"templateId": "t-\#(index)"}"#)
                    }
                    try JobQueue.enqueue(connection, paths: cars)
                    try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"],
                        environment: simulator.workerEnvironment)
                    #expect(await worker.expectExit() && worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                }
                try await database.withConnection { try Rollups.rollUp($0) }
                let typed = try await Self.typedColumns(database)
                let rolledUp = try await Self.rollUps(database)
                // Forty days on, for every result.
                try await database.execute("UPDATE discern.results SET created_at = created_at - interval '40 days'")

                let pruned = try await Subprocess.run(discern, ["prune", "--database-url", conninfo])
                #expect(pruned.contains("6 ooto raw answer(s) older than 30 day(s) dropped"), "\(pruned)")
                let raw = try await database.rows(
                    """
                    SELECT backend, count(*) FILTER (WHERE raw_response = '{}' AND redacted_at IS NOT NULL), count(*)
                    FROM discern.results GROUP BY 1 ORDER BY 1
                    """,
                    as: String.self, Int.self, Int.self
                ).map { backend, redacted, count in "\(backend) \(redacted)/\(count)" }
                #expect(raw == ["discerner 0/6", "ooto 6/6"], "\(raw)")
                #expect(try await Self.typedColumns(database) == typed, "the typed columns stay")
                #expect(try await Self.rollUps(database) == rolledUp, "the roll-ups count the same")

                // Image Discerner's results kept 35 days: they go, their counts stay.
                try await database.execute("INSERT INTO discern.retention (backend, results_days) VALUES ('discerner', 35)")
                let again = try await Subprocess.run(discern, ["prune", "--database-url", conninfo])
                #expect(again.contains("6 discerner result(s) older than 35 day(s) deleted"), "\(again)")
                let left = try await database.rows("SELECT backend FROM discern.results GROUP BY 1", as: String.self)
                let rolledUpAfter = try await Self.rollUps(database)
                #expect(left == ["ooto"] && rolledUpAfter == rolledUp, "\(left) \(rolledUpAfter)")
            }
        }
    }

    static func typedColumns(_ database: Database) async throws -> [String] {
        try await database.rows(
            """
            SELECT format('%s %s %s %s %s', image_path, coalesce(subject_id, '-'), coalesce(outcome, '-'), coalesce(confidence::text, '-'),
                          coalesce(category, '-'))
            FROM discern.results WHERE backend = 'ooto' ORDER BY id
            """,
            as: String.self)
    }

    static func rollUps(_ database: Database) async throws -> [String] {
        try await database.rows(
            "SELECT format('%s %s %s', backend, sum(results), sum(api_calls)) FROM discern.results_per_batch GROUP BY backend ORDER BY backend",
            as: String.self)
    }
}
