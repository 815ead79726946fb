import Foundation
import JobQueue
import Postgres
import QueueReads
import SampleImages
import Simulator
import TestFixtures
import Testing

/// A person's data erased on request, checked as an auditor would: every column of every discern
/// table scanned for the erased id or plate, the stand-ins asked whether they still know it, the
/// log read for every step, and everyone else's data counted before and after.
@Suite("Erasure", .integrationTimeLimit)
struct ErasureTests {
    @Test(
        "one of 50 enrolled subjects erased after 2,050 analyses, OOTO refusing discern's key at first: the request stays in progress until OOTO deletes the template, then no table holds the id, OOTO no longer knows the face, the log has every step without the id, and the 49 others are untouched"
    )
    func oneSubjectOfFifty() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo), discern = try WorkerProcess.binary.path
                let photos = try (0..<50).map {
                    try folder.write(SampleImages.photo(width: 240, height: 240, seed: 9000 + $0), as: "enrolled-\($0).jpg")
                }
                try await database.withConnection { connection in
                    for (index, photo) in photos.enumerated() {
                        try JobQueue.enqueue(
                            connection, paths: [photo], service: "ooto", action: "enroll", batch: "enrolment",
                            paramsJSON: #"{"templateId": "person-\#(index)"}"#)
                    }
                    try JobQueue.enqueue(connection, paths: (0..<2000).map { photos[$0 % 50] }, service: "ooto", action: "identify", batch: "night")
                    try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let night = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--service", "ooto", "--drain", "--concurrency", "16"],
                        environment: simulator.workerEnvironment)
                    #expect(await night.expectExit() && night.exitStatus == 0, "\(night.output.suffix(1500))")
                    // The enrolments came first (lower ids); each identify names its person.
                    let perSubject = try await Self.resultsPerSubject(database)
                    #expect(perSubject.count == 50 && perSubject["person-7"] == 41, "\(perSubject)")

                    // OOTO refuses discern's key while the erasure is asked for.
                    let refused = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--service", "ooto"],
                        environment: simulator.workerEnvironment.merging(["DISCERN_OOTO_APP_KEY": "not-the-key-0000"]) { $1 })
                    let asked = try await Subprocess.run(discern, ["erase", "--subject", "person-7", "--database-url", conninfo])
                    #expect(asked.contains("41 results") && asked.contains("asked: ooto delete") && asked.contains("in progress"), "\(asked)")
                    // Refused: the step's job fails as auth_failed and waits to be tried again.
                    let refusedOnce = await Announcements.until(conninfo) {
                        await database.jobCount(where: "action = 'delete' AND error_kind = 'auth_failed'") == 1
                    }
                    #expect(refusedOnce, "\(refused.output.suffix(1500))")
                    let held = try await Self.status(discern, conninfo)
                    #expect(held.first?.state == "in_progress" && held.first?.steps.first?.state == "waiting", "never done early: \(held)")
                    #expect(held.first?.steps.first?.jobErrorKind == "auth_failed", "the status names the refusal: \(held)")
                    await WorkerProcess.stopAll([refused])

                    // The key is right again: the worker finishes the step, and the request, by itself.
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--service", "ooto"],
                        environment: simulator.workerEnvironment)
                    defer { worker.kill() }
                    let done = await Announcements.until(conninfo) {
                        (try? await database.rows("SELECT state FROM discern.erasure_requests", as: String.self).first) == "done"
                    }
                    #expect(done, "\(worker.output.suffix(1500))")
                    let log = try await Self.status(discern, conninfo)
                    let step = try #require(log.first?.steps.first)
                    #expect(step.service == "ooto" && step.action == "delete" && step.state == "done" && step.outcome == "deleted", "\(log)")
                    #expect(log.first?.removed["results"] == 41 && log.first?.removed["jobs"] == 41, "\(log)")

                    #expect(try await Self.tablesMentioning("person-7", database) == [], "no table holds the erased id")
                    var others = perSubject
                    others["person-7"] = nil
                    #expect(try await Self.resultsPerSubject(database) == others, "the 49 others are untouched")

                    // OOTO itself no longer knows the face: identified again, it matches nobody.
                    let matched = try await Self.identifyAgain(photos[7], service: "ooto", params: "{}", database, conninfo)
                    #expect(matched == .some(nil), "the stand-in still knew the face: \(String(describing: matched))")
                }
            }
        }
    }

    @Test(
        "an Azure person and a plate erased: Azure deletes the person (identify then finds nobody), no table holds the personId or the plate in any spelling, a dry run changes nothing, and other photos' results stay"
    )
    func azurePersonAndPlate() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo), discern = try WorkerProcess.binary.path
                let faces = try (0..<12).map { try folder.write(SampleImages.photo(width: 320, height: 256, seed: 9500 + $0), as: "face-\($0).jpg") }
                let cars = try (0..<20).map { try folder.write(SampleImages.photo(width: 160, height: 120, seed: 9600 + $0), as: "car-\($0).jpg") }
                try await database.withConnection { connection in
                    // A low acceptance threshold: most faces name their person.
                    try JobQueue.enqueue(
                        connection, paths: faces, service: "azure-face", action: "identify", batch: "faces", paramsJSON: #"{"threshold": 0.5}"#)
                    try JobQueue.enqueue(connection, paths: cars, batch: "cars")
                    try connection.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
                }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--log-level", "warning"],
                        environment: simulator.workerEnvironment)
                    defer { worker.kill() }
                    #expect(await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded'") == 32 })
                    let person = try #require(
                        try await database.rows(
                            "SELECT subject_id, image_path FROM discern.results WHERE backend = 'azure-face' AND subject_id IS NOT NULL LIMIT 1",
                            as: String.self, String.self
                        )
                        .first)
                    let (personID, facePath) = person
                    let plate = try #require(
                        try await database.rows(
                            "SELECT license_plate FROM discern.results WHERE license_plate IS NOT NULL LIMIT 1", as: String.self
                        ).first)
                    let before = try await database.value("SELECT count(*) FROM discern.results", as: Int.self)
                    let platePhotos = try await database.value(
                        "SELECT count(*) FROM discern.results WHERE upper(license_plate) = upper(\(plate))", as: Int.self)

                    let dry = try await Subprocess.run(discern, ["erase", "--subject", personID, "--dry-run", "--database-url", conninfo])
                    #expect(dry.contains("dry run") && dry.contains("would ask: azure-face delete"), "\(dry)")
                    let dryJSON = try await Subprocess.run(
                        discern, ["erase", "--subject", personID, "--dry-run", "--format", "json", "--database-url", conninfo])
                    let dryDocument = try JSONSerialization.jsonObject(with: Data(dryJSON.utf8)) as? [String: Any]
                    #expect(
                        dryDocument?["dry_run"] as? Bool == true && dryDocument?["request_id"] is NSNull
                            && (dryDocument?["parts"] as? [String: Int])?["service: azure-face delete"] == 1, "\(dryJSON)")
                    #expect(try await database.value("SELECT count(*) FROM discern.results", as: Int.self) == before)
                    _ = try await Subprocess.run(discern, ["erase", "--subject", personID, "--database-url", conninfo])
                    // The plate as someone would write it on a form: lower case, a space in it.
                    let written = plate.lowercased().prefix(3) + " " + plate.lowercased().dropFirst(3)
                    let erased = try await Subprocess.run(discern, ["erase", "--plate", String(written), "--database-url", conninfo])
                    #expect(erased.contains("\(platePhotos) results") && erased.contains("done"), "\(erased)")
                    let done = await Announcements.until(conninfo) {
                        (try? await database.value("SELECT count(*) FROM discern.erasure_requests WHERE state = 'done'", as: Int.self)) == 2
                    }
                    #expect(done, "\(worker.output.suffix(1500))")
                    #expect(try await Self.tablesMentioning(personID, database) == [])
                    #expect(try await Self.tablesMentioning(plate, database) == [])
                    let after = try await database.value("SELECT count(*) FROM discern.results", as: Int.self)
                    let personPhotos = try await database.rows(
                        "SELECT removed->>'results' FROM discern.erasure_requests WHERE key_kind = 'subject'", as: String.self
                    ).first
                    #expect(after == before - platePhotos - Int(personPhotos ?? "0")!, "\(before) \(after) \(platePhotos) \(personPhotos ?? "-")")

                    // Azure no longer knows the person: the same face now matches nobody.
                    let matched = try await Self.identifyAgain(facePath, service: "azure-face", params: #"{"threshold": 0.5}"#, database, conninfo)
                    #expect(matched == .some(nil), "Azure still knew the person: \(String(describing: matched))")
                }
            }
        }
    }

    /// Identifies `photo` once more (batch "after", a worker running) and returns the subject
    /// the answer names: nil inside when it names nobody, nil outside when no answer came.
    static func identifyAgain(
        _ photo: String, service: String, params: String, _ database: Database, _ conninfo: String
    ) async throws
        -> String??
    {
        try await database.withConnection {
            try JobQueue.enqueue($0, paths: [photo], service: service, action: "identify", batch: "after", paramsJSON: params)
        }
        let after: SQL = "SELECT subject_id FROM discern.results WHERE batch_id = (SELECT id FROM discern.batches WHERE name = 'after')"
        guard await Announcements.until(conninfo, { (try? await database.rows(after, as: String?.self).count) == 1 }) else { return nil }
        return .some(try await database.rows(after, as: String?.self).first ?? nil)
    }

    static func resultsPerSubject(_ database: Database) async throws -> [String: Int] {
        Dictionary(
            uniqueKeysWithValues: try await database.rows(
                "SELECT subject_id, count(*) FROM discern.results WHERE subject_id IS NOT NULL GROUP BY 1", as: String.self, Int.self
            ))
    }

    /// Every discern table with a row whose text (all its columns) holds `value`, case aside, as
    /// written or without spaces and dashes.
    static func tablesMentioning(_ value: String, _ database: Database) async throws -> [String] {
        let tables = try await database.rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'discern' AND table_type = 'BASE TABLE' ORDER BY 1",
            as: String.self)
        let squeezed = value.filter { $0.isLetter || $0.isNumber }
        var found: [String] = []
        for table in tables {
            let count = try await database.value(
                """
                SELECT count(*) FROM discern.\(unescaped: table) x
                WHERE x::text ILIKE '%' || \(value) || '%' OR x::text ILIKE '%' || \(squeezed) || '%'
                """,
                as: Int.self)
            if count > 0 { found.append("\(table): \(count)") }
        }
        return found
    }

    static func status(_ discern: String, _ conninfo: String) async throws -> [ErasureLog.Request] {
        let output = try await Subprocess.run(discern, ["erase", "--status", "--format", "json", "--database-url", conninfo])
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(ErasureLog.self, from: Data(output.utf8)).requests
    }
}
