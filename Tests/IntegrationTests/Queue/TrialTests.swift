import Foundation
import JobQueue
import Postgres
import QueueReads
import ServiceClients
import SampleImages
import Simulator
import TestFixtures
import Testing

/// A trial before a cutover: a candidate (a second simulator answering as another provider) on
/// a reproducible 5 % of a 2,000-photo batch, compared with production field by field against a
/// hand count of the simulator's seeded disagreements, and against a person's reviews; nothing of
/// it reaches the production tables, views or webhooks.
@Suite("Trials", .integrationTimeLimit)
struct TrialTests {
    @Test(
        "a candidate on 5 % of a 2,000-photo batch: agreement per field equals the hand count of the seeded disagreements, reviews give each side's accuracy, the sample is reproducible and resumable, and no production row, view or webhook changes"
    )
    func candidateOnFivePercent() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo), discern = try WorkerProcess.binary.path
                let photos = folder.appendingPathComponent("night")
                try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
                for seed in 0..<2000 {
                    try SampleImages.photo(width: 96, height: 64, seed: 5000 + seed).write(to: photos.appendingPathComponent("n\(seed).jpg"))
                }
                try await database.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                let receiver = try WebhookReceiver(folder: folder)
                try await receiver.start()
                defer { Task { await receiver.stop() } }
                try await TestSimulator.with(.unthrottled) { production in
                    _ = try await Subprocess.run(discern, ["enqueue", photos.path, "--batch", "night", "--database-url", conninfo])
                    let night = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: production.baseURL, logFolder: folder,
                        arguments: ["--drain", "--concurrency", "16"], environment: BatchWebhookTests.environment(receiver))
                    _ = await night.expectExit()
                    #expect(night.exitStatus == 0, "\(night.output.suffix(1500))")
                }
                #expect(await Announcements.until(conninfo) { (try? await BatchWebhookTests.deliveries(conninfo))?.first?.state == "delivered" })
                // A person reviewed four of the photos the trial will sample (the sample is known
                // before it runs: the same name draws the same photos).
                let sample = try await Self.sample(database, name: "vision-next", batch: "night", share: 0.05)
                #expect(sample.count == 100)
                let reviewed = Array(sample.prefix(4))
                for (index, path) in reviewed.enumerated() {
                    try await database.execute(
                        """
                        INSERT INTO discern.corrections (result_id, confirmed, verdict, license_plate, corrected_by)
                        SELECT id, \(index < 2), \(index < 2 ? "confirmed" : "corrected"), \(index < 2 ? nil : "ZZ 0000" as String?), 'reviewer'
                        FROM discern.results WHERE image_path = \(path)
                        """)
                }
                let before = try await Self.productionFootprint(database)

                var candidate = SimulatorConfiguration.unthrottled
                candidate.discernerProvider = DiscernerProvider(name: "vision-next", disagreement: 0.3)
                try await TestSimulator.with(candidate) { next in
                    let run = [
                        "trial", "run", "vision-next", "--batch", "night", "--share", "0.05", "--set", "DISCERN_DISCERNER_URL=\(next.baseURL)",
                        "--database-url", conninfo
                    ]
                    let output = try await Subprocess.run(
                        discern, run, environment: ["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path])
                    #expect(output.contains("100 answered, 0 failed"), "\(output)")
                    let again = try await Subprocess.run(
                        discern, run, environment: ["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path])
                    #expect(again.contains("about 0 photo(s)"), "run again, it asks for nothing it has: \(again)")
                }
                #expect(try await Self.productionFootprint(database) == before, "the trial wrote nothing production reads")

                let report = try await Self.report(discern, conninfo)
                let asked = try await database.rows("SELECT image_path FROM discern.trial_results ORDER BY 1", as: String.self)
                #expect(asked == sample.sorted() && report.sampled == 100 && report.compared == 100 && report.failed.isEmpty)
                // The hand count: which field the candidate disagrees on, from each photo's bytes.
                var differs: [String: Int] = [:], reviewedDiffers: [String: Int] = [:]
                for path in sample {
                    guard let field = DiscernerProvider.disagreement(of: try Data(contentsOf: URL(fileURLWithPath: path)), share: 0.3) else {
                        continue
                    }
                    differs[field.rawValue, default: 0] += 1
                    if reviewed.contains(path) { reviewedDiffers[field.rawValue, default: 0] += 1 }
                }
                #expect(differs.values.reduce(0, +) > 10, "enough seeded disagreements to count: \(differs)")
                let byField = Dictionary(uniqueKeysWithValues: report.fields.map { ($0.field, $0) })
                for field in ["category", "operator", "fleet_id", "license_plate", "subject_id"] {
                    let row = try #require(byField[field])
                    #expect(row.n == 100 && row.agree == 100 - differs[field, default: 0], "\(field): \(row.agree) agree, hand count \(differs)")
                    #expect(row.agreeLow <= row.agreement && row.agreement <= row.agreeHigh)
                }
                // Two reviews confirm production, two correct its plate to one neither side read.
                let plate = try #require(byField["license_plate"]), operatorField = try #require(byField["operator"])
                let confirmedPlateDiffers = try reviewed.prefix(2).filter {
                    DiscernerProvider.disagreement(of: try Data(contentsOf: URL(fileURLWithPath: $0)), share: 0.3) == .licensePlate
                }.count
                #expect(plate.reviewed == 4 && plate.productionRight == 2 && plate.candidateRight == 2 - confirmedPlateDiffers, "\(plate)")
                #expect(
                    operatorField.reviewed == 4 && operatorField.productionRight == 4
                        && operatorField.candidateRight == 4 - reviewedDiffers["operator", default: 0], "\(operatorField)")
                #expect(byField["subject_id"]?.reviewed == 0)
                let sides = Dictionary(uniqueKeysWithValues: report.sides.map { ($0.side, $0) })
                #expect(sides["candidate"]?.models == ["vision-next"] && sides["production"]?.models == ["simulator"], "\(report.sides)")
                #expect(sides["candidate"]?.callsPerPhoto == 2 && report.calibration.contains { $0.side == "candidate" })
                let listed = try await Subprocess.run(discern, ["trial", "list", "--database-url", conninfo])
                #expect(listed.contains("vision-next") && listed.contains("5 %"), "\(listed)")

                // The console shows the same report, and its API the same document.
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let list = await RawHTTP.get(port: port, path: "/trials")
                #expect(list.status == 200 && list.body.contains("href=\"/trials/vision-next\""), "\(list.body.prefix(600))")
                let page = await RawHTTP.get(port: port, path: "/trials/vision-next")
                let category = try #require(byField["category"])
                #expect(page.status == 200 && page.body.contains("\(category.agree) of 100"), "\(page.body.prefix(1200))")
                let api = await RawHTTP.get(port: port, path: "/api/trials/vision-next")
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                let served = try decoder.decode(TrialReport.self, from: Data(api.body.utf8))
                #expect(served.fields.map(\.agree) == report.fields.map(\.agree))
                #expect(await RawHTTP.get(port: port, path: "/trials/nope").status == 404)
            }
        }
    }

    @Test("a trial's settings are checked before anything runs, a secret is recorded only as set, and another sample under a taken name is refused")
    func settingsAndNames() async throws {
        try await TestDatabase.with { conninfo in
            let discern = try WorkerProcess.binary.path
            try await Database(conninfo: conninfo).execute("SELECT discern.batch_id('b')")
            let base = ["trial", "run", "t", "--database-url", conninfo, "--set", "DISCERN_DISCERNER_URL=http://127.0.0.2:1/"]
            let first = try await Subprocess.run(
                discern, base + ["--batch", "b", "--count", "3"], environment: ["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path])
            #expect(first.contains("about 0 photo(s)") && first.contains("nothing to compare yet"), "\(first)")
            for (arguments, expected) in [
                (["--batch", "b", "--share", "0.05", "--count", "3"], "--count N or --share"),
                (["--batch", "b", "--share", "1.5"], "--share must be"),
                (["--batch", "b", "--count", "3", "--set", "DISCERN_DATABASE_URL=x"], "not a setting of discerner"),
                (["--batch", "nope", "--count", "3"], "exists with another service, batch or sample"),
                (["--batch", "b", "--count", "4"], "exists with another service, batch or sample")
            ] {
                let (status, output) = try await Subprocess.runWithStatus(
                    discern, base + arguments, environment: ["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path])
                #expect(status == 64 && output.contains(expected), "\(arguments): \(status) \(output)")
            }
            let (status, output) = try await Subprocess.runWithStatus(
                discern,
                [
                    "trial", "run", "u", "--batch", "nope", "--count", "3", "--database-url", conninfo, "--set",
                    "DISCERN_DISCERNER_URL=http://127.0.0.2:1/"
                ],
                environment: ["DISCERN_PATH_ROOTS": FileManager.default.temporaryDirectory.path])
            #expect(status == 64 && output.contains("no batch named 'nope'"), "\(status) \(output)")
            let recorded = Services.azureFace.recordedSettings([
                "DISCERN_AZURE_FACE_ENDPOINT": "https://user:pw@face.example/face/v1.0?code=abc", "DISCERN_AZURE_FACE_KEY": "k3y-secret-value",
                "DISCERN_AZURE_FACE_THRESHOLD": "0.6", "DISCERN_DATABASE_URL": "postgres://x"
            ])
            #expect(
                recorded == [
                    "DISCERN_AZURE_FACE_ENDPOINT": "https://face.example/face/v1.0", "DISCERN_AZURE_FACE_KEY": "(set)",
                    "DISCERN_AZURE_FACE_THRESHOLD": "0.6"
                ], "\(recorded)")
        }
    }

    /// The photos a trial of `name` on `share` of `batch` samples, drawn the way the trial draws them.
    static func sample(_ database: Database, name: String, batch: String, share: Double) async throws -> [String] {
        try await database.withConnection { connection in
            try connection.transaction { connection in
                let definition = Trials.Definition(
                    name: name, service: "discerner", action: "analyze", productionService: "discerner", productionAction: "analyze",
                    batch: batch, sampleCount: nil, share: share, seed: Trials.Definition.seed(of: name), candidate: [:])
                let trial = try Trials.open(definition, on: connection)
                let paths = try Trials.pending(trial, on: connection).map(\.imagePath)
                try connection.execute("DELETE FROM discern.trials WHERE id = \(trial.id)")
                return paths
            }
        }
    }

    /// What production reads, counted: a trial must leave every figure as it was.
    static func productionFootprint(_ database: Database) async throws -> [String] {
        try await database.rows(
            """
            SELECT format('%s jobs, %s results, %s entities, %s latest, %s per batch, %s events, %s deliveries, %s pending checks',
                          (SELECT count(*) FROM discern.jobs), (SELECT count(*) FROM discern.results), (SELECT count(*) FROM discern.entities),
                          (SELECT count(*) FROM discern.latest_results), (SELECT sum(results) FROM discern.results_per_batch),
                          (SELECT count(*) FROM discern.batch_events), (SELECT count(*) FROM discern.notification_deliveries),
                          (SELECT count(*) FROM discern.pending_batch_checks)) AS figures
            """, as: String.self
        )
    }

    static func report(_ discern: String, _ conninfo: String) async throws -> TrialReport {
        let output = try await Subprocess.run(discern, ["trial", "report", "vision-next", "--format", "json", "--database-url", conninfo])
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(TrialReport.self, from: Data(output.utf8))
    }
}
