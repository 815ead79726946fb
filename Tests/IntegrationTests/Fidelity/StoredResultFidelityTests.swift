import Foundation
import Postgres
import Simulator
import TestFixtures
import Testing

/// Every stored value is what the service said about that job's photo: no value in another
/// column, no answer under another job, under concurrency, SIGKILLs and the one-by-one writes
/// that follow a batch PostgreSQL refused.
@Suite("Fidelity: stored results", .integrationTimeLimit)
struct StoredResultFidelityTests {
    @Test("every column of every result and entity row is what the simulator answered for that job: 3 workers, SIGKILLs, refused batches")
    func storedAsAnswered() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.recordsAnswers = true
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(300, into: conninfo, folder: folder)
                let database = Database(conninfo: conninfo, name: "test-fidelity")
                // Five results PostgreSQL refuses, among the first jobs claimed. Until the service has
                // answered all of those, every write waits on a lock the test holds: results pile up
                // in each worker and go in batches, so refused batches are written one by one, and
                // only their culprits die. Whatever the load, no timing needed.
                let first = try await database.rows("SELECT id FROM discern.jobs ORDER BY id LIMIT 25", as: Int.self)
                let refused = stride(from: 4, to: 25, by: 5).map { first[$0] }
                try await database.withConnection { connection in
                    try connection.executeScript(
                        """
                        CREATE TABLE fidelity_refused (job_id bigint PRIMARY KEY);
                        CREATE FUNCTION fidelity_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN
                            PERFORM pg_advisory_lock_shared(4242);
                            PERFORM pg_advisory_unlock_shared(4242);
                            IF EXISTS (SELECT 1 FROM fidelity_refused WHERE job_id = NEW.job_id) THEN
                                RAISE check_violation USING MESSAGE = 'refused by the fidelity test';
                            END IF;
                            RETURN NEW;
                        END $$;
                        CREATE TRIGGER fidelity_refuse BEFORE INSERT ON discern.results FOR EACH ROW EXECUTE FUNCTION fidelity_refuse();
                        """)
                    try connection.execute("INSERT INTO fidelity_refused SELECT unnest(\(refused)::bigint[])")
                }
                let gate = Database(conninfo: conninfo, name: "test-gate")
                try await gate.withConnection { try $0.execute("SELECT pg_advisory_lock(4242)") }
                try await TestSimulator.with(configuration) { simulator in
                    let arguments = ["--lease-seconds", "2", "--poll-seconds", "0.2", "--concurrency", "8", "--log-level", "notice"]
                    var workers = try (0..<3).map { _ in
                        try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: arguments)
                    }
                    let answered = await Poll.until {
                        for id in first where await simulator.stats.answers(for: "discern-job-\(id)").isEmpty { return false }
                        return true
                    }
                    var unanswered: [Int] = []
                    for id in first where await simulator.stats.answers(for: "discern-job-\(id)").isEmpty { unanswered.append(id) }
                    let states = try await database.rows(
                        "SELECT state, count(*) FROM discern.jobs GROUP BY state ORDER BY state", as: String.self, Int.self
                    )
                    .map { state, count in "\(state) \(count)" }.joined(separator: ", ")
                    try await gate.withConnection { try $0.execute("SELECT pg_advisory_unlock(4242)") }
                    #expect(
                        answered, "jobs \(unanswered) were never answered; jobs: \(states); logs: \(ChaosJobs.keepLogs(of: folder, test: "fidelity"))"
                    )
                    for _ in 0..<4 {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 300...700)))
                        let victim = Int.random(in: 0..<workers.count)
                        workers[victim].kill()
                        workers[victim] = try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: arguments)
                    }
                    let done = try await Announcements.until(conninfo) {
                        let census = try await TestDatabase.census(conninfo)
                        return census.succeeded + census.dead == 300
                    }
                    await WorkerProcess.stopAll(workers)
                    let census = try await TestDatabase.census(conninfo)
                    let unfinished = try await ChaosJobs.unfinishedJobs(conninfo)
                    #expect(done && census == QueueCensus(succeeded: 295, dead: 5, results: 295, jobsWithOneResult: 295), "\(census)\n\(unfinished)")
                    let deadKinds: [(id: Int, errorKind: String?)] = try await database.rows(
                        "SELECT id, error_kind FROM discern.jobs WHERE state = 'dead' ORDER BY id", as: Int.self, String?.self)
                    #expect(deadKinds.map(\.id) == refused)
                    #expect(deadKinds.allSatisfy { $0.errorKind == "result_unstorable" })
                    #expect(Self.logs(in: folder).contains("writing them one by one"), "no batch was refused: the one-by-one path went untested")

                    var checked = 0
                    for row in try await Self.storedRows(database) {
                        let mismatches = try await Self.mismatches(row, simulator: simulator)
                        #expect(mismatches.isEmpty, "job \(row.jobID): \(mismatches.joined(separator: "; "))")
                        checked += 1
                    }
                    #expect(checked == 295)
                }
            }
        }
    }

    struct StoredRow {
        let jobID: Int
        let jobBatchID: Int?
        let jobPath: String
        let result: [String: Any]
        let entities: [[String: Any]]
    }

    static func storedRows(_ database: Database) async throws -> [StoredRow] {
        try await database.rows(
            """
            SELECT j.id, j.batch_id, j.image_path, row_to_json(r)::text AS result,
                   (SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.position), '[]') FROM discern.entities e WHERE e.result_id = r.id)::text AS entities
            FROM discern.results r JOIN discern.jobs j ON j.id = r.job_id ORDER BY j.id
            """, as: Int.self, Int?.self, String.self, String.self, String.self
        ).map { id, batchID, imagePath, result, entities in
            StoredRow(
                jobID: id, jobBatchID: batchID, jobPath: imagePath,
                result: try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any] ?? [:],
                entities: try JSONSerialization.jsonObject(with: Data(entities.utf8)) as? [[String: Any]] ?? [])
        }
    }

    /// What differs between the stored rows and the answer the simulator gave this job (one of
    /// them, when a killed attempt was answered too).
    static func mismatches(_ row: StoredRow, simulator: RunningSimulator) async throws -> [String] {
        let answers = await simulator.stats.answers(for: "discern-job-\(row.jobID)")
        let stored = row.result["raw_response"] as? NSDictionary
        guard let answer = answers.first(where: { (try? JSONSerialization.jsonObject(with: $0.body)) as? NSDictionary == stored }),
            let reading = ReferenceReading(answer: answer.body)
        else {
            return ["its raw_response is none of the \(answers.count) answers the simulator gave it"]
        }
        var wrong: [String] = []
        func check(_ column: String, _ expected: Any?) {
            let value = row.result[column].flatMap { $0 is NSNull ? nil : $0 }
            let same =
                switch (value, expected) {
                case (nil, nil): true
                case (let value?, let expected?): Self.canonical(value) == Self.canonical(expected)
                default: false
                }
            if !same { wrong.append("\(column) is \(value.map { "\($0)" } ?? "NULL"), the answer says \(expected.map { "\($0)" } ?? "NULL")") }
        }
        let expected = reading.resultColumns
        for column in ["category", "subcategory", "operator", "fleet_id", "license_plate", "confidence", "text_identifiers", "outcome", "details"] {
            check(column, expected[column])
        }
        check("description", nil)
        check("subject_id", nil)
        check("job_id", row.jobID)
        check("batch_id", row.jobBatchID)
        check("image_path", row.jobPath)
        check("backend", "discerner")
        check("action", "analyze")
        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: row.jobPath)[.size] as? Int) ?? -1
        check("original_bytes", fileBytes)
        check("original_width", 96)
        check("original_height", 64)
        check("original_format", "jpeg")
        check("sent_bytes", answer.imageBytes)
        check("sent_format", "jpeg")
        if (row.result["api_calls"] as? Int ?? 0) < 2 {
            wrong.append("api_calls is \(row.result["api_calls"] ?? "NULL"), fewer than the 2 calls to the service an analysis takes")
        }
        let entities = row.entities.map(ReferenceReading.Entity.init(row:))
        if entities != reading.entities { wrong.append("entities are \(entities), the answer says \(reading.entities)") }
        if row.entities.map({ $0["position"] as? Int ?? -1 }) != Array(row.entities.indices) { wrong.append("entity positions are not 0, 1, ...") }
        return wrong
    }

    /// A JSON value written one way whatever its Swift or Foundation type, for comparing.
    static func canonical(_ value: Any) -> String {
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
    }

    static func logs(in folder: URL) -> String {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".log") }
            .compactMap { try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined()
    }
}
