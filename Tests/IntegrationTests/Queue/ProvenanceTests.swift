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
/// each service's newest answer for a photo.
@Suite("Results and their provenance", .integrationTimeLimit)
struct ProvenanceTests {
    @Test(
        "a photo analysed by Image Discerner and the landmark predictor: each result names its service's host, model, format, release and budget; latest_results shows both; provider X last week is read through results_by_model"
    )
    func twoServicesOnePhoto() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photo = try folder.write(SampleImages.photo(width: 320, height: 240, seed: 5), as: "truck.jpg")
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in
                    try JobQueue.enqueue(connection, paths: [photo], backend: "discerner")
                    try JobQueue.enqueue(connection, paths: [photo], backend: "landmark", action: "predict")
                    try connection.query("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain"],
                        environment: ["DISCERN_LANDMARK_URL": simulator.landmarkURL, "DISCERN_UPLOAD_ALLOWED_HOSTS": "127.0.0.1"])
                    _ = await worker.expectExit()
                    #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                    let release = try await Subprocess.run(try WorkerProcess.binary.path, ["version", "--format", "json"])
                    let version = (try JSONSerialization.jsonObject(with: Data(release.utf8)) as? [String: Any])?["version"] as? String
                    let rows = try await database.rows(
                        """
                        SELECT backend, coalesce(service_host, '-') AS host, coalesce(model, '-') AS model, coalesce(model_version, '-') AS format,
                               coalesce(discern_version, '-') AS release, coalesce(byte_budget, -1) AS budget,
                               provenance #>> '{preparation,max_bytes}' AS policy_bytes, provenance::text AS provenance
                        FROM discern.latest_results WHERE image_path = $1 ORDER BY backend
                        """, [photo])
                    let seen = try rows.map {
                        (
                            service: try $0.string("backend"), host: try $0.string("host"), model: try $0.string("model"),
                            format: try $0.string("format"),
                            release: try $0.string("release"), budget: try $0.int("budget"), policyBytes: try $0.optionalString("policy_bytes"),
                            provenance: try $0.string("provenance")
                        )
                    }
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
                        try connection.query("SET enable_seqscan = off")
                        return try connection.query(
                            """
                            EXPLAIN SELECT count(*) FROM discern.results
                            WHERE backend = 'discerner' AND model = 'simulator' AND created_at > now() - interval '7 days'
                            """
                        ).map { try $0.string("QUERY PLAN") }.joined(separator: "\n")
                    }
                    #expect(plan.contains("results_by_model"), "\(plan)")
                    // The console's page of the job says it too.
                    let job = try await database.rows("SELECT id FROM discern.jobs WHERE backend = 'discerner'").first?.int("id") ?? -1
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
}
