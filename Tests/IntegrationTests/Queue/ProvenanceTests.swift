import Foundation
import JobQueue
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// Results that know where they came from: each row names the service's deployment, the model
/// and format the answer reports, the worker's release and the preparation policy; a dashboard's
/// "answers from provider X last week" is served by an index; the latest-results view keeps
/// each service's newest answer for a photo; results older than their provenance get Image
/// Discerner's back from their raw answers, and discern_reader never reads the settings.
@Suite("Results and their provenance", .integrationTimeLimit)
struct ProvenanceTests {
    @Test(
        "a photo analysed by Image Discerner and the landmark predictor: each result names its service's host, model, format, release and budget; latest_results shows both; provider X last week is read through an index"
    )
    func twoServicesOnePhoto() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photo = try folder.write(SampleImages.photo(width: 320, height: 240, seed: 5), as: "truck.jpg")
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in
                    try JobQueue.enqueue(connection, paths: [photo], service: "discerner")
                    try JobQueue.enqueue(connection, paths: [photo], service: "landmark", action: "predict")
                    try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"],
                        environment: ["DISCERN_LANDMARK_URL": simulator.landmarkURL, "DISCERN_UPLOAD_ALLOWED_HOSTS": "127.0.0.1"])
                    _ = await worker.expectExit()
                    #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                    let release = try await Subprocess.run(try WorkerProcess.binary.path, ["version", "--format", "json"])
                    let version = (try JSONSerialization.jsonObject(with: Data(release.utf8)) as? [String: Any])?["version"] as? String
                    let seen:
                        [(
                            service: String, host: String, model: String, format: String, release: String, budget: Int, policyBytes: String?,
                            provenance: String
                        )] = try await database.rows(
                            """
                            SELECT backend, coalesce(service_host, '-') AS host, coalesce(model, '-') AS model, coalesce(model_version, '-') AS format,
                                   coalesce(discern_version, '-') AS release, coalesce(byte_budget, -1) AS budget,
                                   provenance #>> '{preparation,max_bytes}' AS policy_bytes, provenance::text AS provenance
                            FROM discern.latest_results WHERE image_path = \(photo) ORDER BY backend
                            """,
                            as: String.self, String.self, String.self, String.self, String.self, Int.self, String?.self, String.self)
                    #expect(seen.map(\.service) == ["discerner", "landmark"], "both services' answers for the photo: \(seen)")
                    let host = try #require(URLComponents(string: simulator.baseURL)).port.map { "127.0.0.1:\($0)" }
                    for row in seen {
                        #expect(row.release == version && row.budget > 0 && row.policyBytes == String(row.budget), "\(row)")
                    }
                    let discerner = try #require(seen.first)
                    #expect(
                        discerner.host == host && discerner.model == "simulator" && discerner.format == "3.0"
                            && discerner.provenance.contains("\"text_provider\": \"simulator\""), "\(discerner)")
                    #expect(seen.last?.provenance.contains("unsure_below") == true, "\(String(describing: seen.last))")
                    let plan = try await database.withConnection { connection in
                        try connection.execute("SET enable_seqscan = off")
                        return try connection.rows(
                            """
                            EXPLAIN SELECT count(*) FROM discern.results
                            WHERE backend = 'discerner' AND model = 'simulator' AND created_at > now() - interval '7 days'
                            """, as: String.self
                        ).joined(separator: "\n")
                    }
                    // An index serves the week (at scale the BRIN on created_at; on a table this
                    // small the planner may pick another that also holds created_at).
                    #expect(plan.contains("Index Scan") && !plan.contains("Seq Scan"), "\(plan)")
                    // The console's page of the job says it too.
                    let job = try await database.rows("SELECT id FROM discern.jobs WHERE backend = 'discerner'", as: Int.self).first ?? -1
                    let (console, port) = try await ConsoleTests.console(conninfo, folder)
                    defer { console.kill() }
                    let page = await RawHTTP.get(port: port, path: "/jobs/\(job)")
                    #expect(
                        page.status == 200
                            && page.body.contains("Answered at \(host ?? "?") by model simulator (answer format 3.0), written by discern"),
                        "\(page.status): \(page.body.suffix(2000))")
                }
            }
        }
    }
    @Test(
        "Image Discerner's provider changes between two nights (the simulator's control endpoint): each night's results name the provider that answered, and a count per model reads them apart"
    )
    func providerChange() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                func night(_ seeds: ClosedRange<Int>, batch: String) async throws {
                    let photos = try seeds.map { try folder.write(SampleImages.photo(width: 160, height: 120, seed: $0), as: "n\($0).jpg") }
                    try await database.withConnection { connection in
                        try JobQueue.enqueue(connection, paths: photos, batch: batch)
                        try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                    }
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let port = try #require(URLComponents(string: simulator.baseURL)?.port)
                    for (seeds, batch, provider) in [(700...703, "october", nil), (710...714, "november", "vision-2026-11")] {
                        if let provider {
                            let changed = await RawHTTP.post(
                                port: port, path: "/_sim/discerner-provider", body: #"{"name": "\#(provider)", "disagreement": 0.5}"#,
                                headers: ["Content-Type": "application/json"])
                            #expect(changed.status == 200, "\(changed.body)")
                        }
                        try await night(seeds, batch: batch)
                        let worker = try WorkerProcess(conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"])
                        _ = await worker.expectExit()
                        #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                    }
                    let refused = await RawHTTP.post(
                        port: port, path: "/_sim/discerner-provider", body: #"{"name": "x", "disagreement": 7}"#,
                        headers: ["Content-Type": "application/json"])
                    #expect(refused.status == 400, "a share outside 0...1 is refused: \(refused.body)")
                }
                let counts = try await database.rows(
                    """
                    SELECT b.name AS batch, r.model, count(*) AS n FROM discern.results r
                    JOIN discern.batches b ON b.id = r.batch_id
                    GROUP BY 1, 2 ORDER BY 1, 2
                    """, as: String.self, String.self, Int.self
                ).map { batch, model, n in "\(batch) \(model) \(n)" }
                #expect(counts == ["november vision-2026-11 5", "october simulator 4"], "\(counts)")
            }
        }
    }

    @Test(
        "a result written before its provenance was recorded gets Image Discerner's model and format back from its raw answer in result_provenance; discern_reader may read that view and the typed columns, never results.provenance"
    )
    func olderResultsAndTheReader() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let old =
                #"{"success": true, "analysis_result": {"statusCode": 200, "body": {"entities": [], "processing_metadata": {"classification_provider": "provider-a", "response_format_version": "3.0"}}}}"#
            let shape = #"{"success": true, "analysis_result": {"statusCode": 200, "body": {"primary_subject": {}}}}"#
            typealias Provenance = (imagePath: String, model: String?, modelVersion: String?, recovered: Bool)
            let rows: [Provenance] = try await database.withConnection { connection in
                // As a release before migration 38 wrote them: no provenance columns filled.
                for (path, raw) in [("/photos/old.jpg", old), ("/photos/older.jpg", shape)] {
                    try connection.execute(
                        """
                        INSERT INTO discern.results (image_path, backend, action, raw_response, original_bytes, original_width, original_height,
                                                     original_format, sent_bytes, sent_width, sent_height, sent_format, passed_through,
                                                     prepare_ms, analyze_ms, audit)
                        VALUES (\(path), 'discerner', 'analyze', \(raw)::jsonb, 1, 1, 1, 'jpeg', 1, 1, 1, 'jpeg', true, 1, 1, false)
                        """)
                }
                return try connection.rows(
                    "SELECT image_path, model, model_version, recovered FROM discern.result_provenance ORDER BY image_path",
                    as: String.self, String?.self, String?.self, Bool.self)
            }
            #expect(rows.count == 2 && rows[0].model == "provider-a" && rows[0].modelVersion == "3.0" && rows[0].recovered, "\(rows)")
            #expect(
                rows.count == 2 && rows[1].model == nil && rows[1].modelVersion == "2.0", "a 2.0 answer without metadata, by its shape: \(rows)")
            try await database.withConnection { connection in
                try connection.execute("SET ROLE discern_reader")
                try connection.execute("SELECT model, service_host, discern_version FROM discern.result_provenance")
                try connection.execute("SELECT service_host, model, model_version, discern_version, byte_budget FROM discern.results")
                #expect(throws: PostgresError.self, "the settings may name a person group") {
                    _ = try connection.execute("SELECT provenance FROM discern.results")
                }
                try? connection.execute("RESET ROLE")
            }
        }
    }
}
