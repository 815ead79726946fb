import Foundation
import JobQueue
import Postgres
import QueueReads
import TestFixtures
import Testing

/// Measured accuracy against a known truth. A population of plates is written with
/// a known chance of being read right in each confidence band; the audit sample (picked by
/// the schema when each result is written) is reviewed with the truth. The data are fixed
/// (hashes of fixed seeds): the same every run.
@Suite("Quality: audit sample and measured accuracy", .integrationTimeLimit)
struct QualityTests {
    /// The chance the service reads a plate right at `confidence`: from 55 % to 99 %.
    static let rightChance: SQL = "(0.55 + 0.44 * confidence)"

    /// Writes `count` results for `backend`, confidence spread evenly over 0-1, each plate read
    /// right or not by a hash of `seed`; the truth goes to `truth_<seed>` (result id, plate).
    static func population(_ database: Database, count: Int, seed: Int) async throws {
        try await database.execute(
            """
            CREATE TABLE truth_\(unescaped: String(seed)) AS
            WITH made AS (
                SELECT g, (g % 1000) / 1000.0 AS confidence, 'PL' || g AS plate FROM generate_series(1, \(count)) g),
            judged AS (
                SELECT g, confidence, plate,
                       ((hashtextextended(g::text, \(seed)) & 9223372036854775807)::float8 / 9223372036854775807.0) < \(rightChance) AS is_right
                FROM made),
            written AS (
                INSERT INTO discern.results (image_path, backend, action, raw_response, original_bytes, original_width, original_height,
                    original_format, sent_bytes, sent_width, sent_height, sent_format, passed_through, prepare_ms, analyze_ms,
                    confidence, license_plate, operator, category)
                SELECT '/truth/' || \(seed)::text || '/' || g, 'discerner', 'analyze', '{}', 1, 1, 1, 'jpeg', 1, 1, 1, 'jpeg', true, 1, 1,
                       confidence, CASE WHEN is_right THEN plate ELSE 'X' || plate END, 'UPS', 'vehicle'
                FROM judged ORDER BY g
                RETURNING id, image_path, confidence, license_plate)
            SELECT w.id AS result_id, j.plate, j.is_right, j.confidence
            FROM written w JOIN judged j ON w.image_path = '/truth/' || \(seed)::text || '/' || j.g
            """)
    }

    @Test(
        "audit reviews measure each band's accuracy within its interval of the truth; the threshold they recommend meets its target on a fresh sample"
    )
    func accuracyAgainstTruth() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.execute("UPDATE discern.audit_settings SET rate = 0.1, seed = 11")
            try await Self.population(database, count: 30_000, seed: 1)
            // The audit sample, picked by the schema as results were written: about a tenth.
            let audited = try await database.value("SELECT count(*) FROM discern.results WHERE audit", as: Int.self)
            #expect((2_500...3_500).contains(audited), "\(audited) of 30,000 audited at 10 %")
            // A reviewer says what is there: right as read, or the true plate; a few cannot tell.
            try await database.execute(
                """
                INSERT INTO discern.corrections (result_id, confirmed, verdict, license_plate, corrected_by)
                SELECT t.result_id, t.is_right AND t.result_id % 50 <> 0,
                       CASE WHEN t.result_id % 50 = 0 THEN 'cannot_tell' WHEN t.is_right THEN 'confirmed' ELSE 'corrected' END,
                       CASE WHEN NOT t.is_right AND t.result_id % 50 <> 0 THEN t.plate END, 'auditor'
                FROM truth_1 t JOIN discern.results r ON r.id = t.result_id WHERE r.audit
                """)
            let reader = try await QueueReader(conninfo: conninfo, connections: 1)
            let quality = try await reader.quality(QualityFilter(service: "discerner", field: "license_plate", target: 0.05))
            let bands: [(band: String, share: Double?)] = try await database.rows(
                """
                SELECT to_char(least(floor(confidence * 10), 9) / 10, 'FM0.0') AS band, avg(is_right::int)::float8 AS share
                FROM truth_1 GROUP BY 1 UNION ALL SELECT 'all', avg(is_right::int)::float8 FROM truth_1
                """, as: String.self, Double?.self
            )
            let truth = bands.reduce(into: [String: Double]()) { $0[$1.band] = $1.share }
            let plates = quality.rows.filter { $0.field == "license_plate" }
            #expect(plates.count == 11, "ten bands and the whole: \(plates.map(\.band))")
            for row in plates {
                let share = try #require(truth[row.band])
                #expect(
                    row.accuracyLow <= share && share <= row.accuracyHigh,
                    "band \(row.band): the truth \(share) outside [\(row.accuracyLow), \(row.accuracyHigh)] from \(row.n) reviews")
                #expect(row.missing == 0 && row.invented == 0 && row.wrong == row.n - row.right, "a plate read wrong is wrong, never missing")
            }
            let operators = try #require(quality.rows.first { $0.field == "operator" && $0.band == "all" })
            #expect(operators.accuracy == 1, "operators were always read right")
            let sample = try #require(quality.samples.first)
            #expect(sample.audited == audited && sample.cannotTell > 0 && sample.reviewed == audited && sample.pending == 0)

            // The threshold, applied to a fresh population the audit never saw.
            let advice = try #require(quality.recommendation)
            let below = try #require(advice.reviewBelow, "a threshold reaches 5 %")
            #expect(below > 0 && below < 1 && (advice.errorsAfterReviewAtMost ?? 1) <= 0.05)
            try await Self.population(database, count: 30_000, seed: 2)
            let fresh =
                try await database.value(
                    """
                    SELECT avg((NOT is_right AND confidence >= \(below))::int)::float8 AS wrong_after_review FROM truth_2
                    """, as: Double?.self
                ) ?? 1
            #expect(fresh <= 0.05, "reviewing below \(below) leaves \(fresh) of fresh plates wrong")
            // Reviewing a band lower would not have met it: the advice is not wasteful by a band.
            if below >= 0.1 {
                let cheaper =
                    try await database.value(
                        """
                        SELECT avg((NOT is_right AND confidence >= \(below - 0.1))::int)::float8 AS w FROM truth_2
                        """, as: Double?.self
                    ) ?? 0
                #expect(cheaper > 0.05 * 0.8, "one band lower leaves \(cheaper): the advice is close to what is needed")
            }
        }
    }

    @Test("the audit pick is reproducible and made once: the same job and seed pick the same results; a new seed changes only later picks")
    func auditPickIsReproducible() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let counts: [(a: Int, same: Int, b: Int, none: Int)] = try await database.rows(
                """
                SELECT count(*) FILTER (WHERE discern.audit_pick(g, 0.02, 5)) AS a,
                       count(*) FILTER (WHERE discern.audit_pick(g, 0.02, 5) = discern.audit_pick(g, 0.02, 5)) AS same,
                       count(*) FILTER (WHERE discern.audit_pick(g, 0.02, 6)) AS b,
                       count(*) FILTER (WHERE discern.audit_pick(g, 0, 5)) AS none
                FROM generate_series(1, 100000) g
                """, as: Int.self, Int.self, Int.self, Int.self
            )
            let picks = counts.first
            #expect(picks?.same == 100_000 && picks?.none == 0)
            #expect((1_800...2_200).contains(picks?.a ?? 0) && (1_800...2_200).contains(picks?.b ?? 0))
            try await Self.population(database, count: 2_000, seed: 3)
            let before = try await database.value("SELECT array_agg(id ORDER BY id) AS ids FROM discern.results WHERE audit", as: String?.self)
            try await database.execute("UPDATE discern.audit_settings SET rate = 0.5, seed = 99")
            try await database.execute("UPDATE discern.results SET confidence = confidence")
            let after = try await database.value("SELECT array_agg(id ORDER BY id) AS ids FROM discern.results WHERE audit", as: String?.self)
            #expect(before == after, "a result is picked, or not, when it is written")
        }
    }

    @Test("a completion picks its result for the audit by the backend's own setting, else '*'")
    func completionPicks() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            func completeAll() async throws -> [String: Bool] {
                try await database.withConnection { connection in
                    try JobQueue.enqueue(connection, paths: ["/a.jpg"], service: "discerner")
                    try JobQueue.enqueue(connection, paths: ["/b.jpg"], service: "ooto")
                    let jobs = try JobQueue.claim(connection, workerID: "w", services: ["discerner", "ooto"], limit: 2, leaseSeconds: 60)
                    _ = try JobQueue.complete(connection, workerID: "w", results: jobs.map { ($0.id, QueueTests.sampleResult) })
                    let picked: [(backend: String, audit: Bool)] = try connection.rows(
                        """
                        SELECT r.backend, r.audit FROM discern.results r WHERE r.job_id = ANY(\(jobs.map(\.id))::bigint[])
                        """, as: String.self, Bool.self)
                    return Dictionary(uniqueKeysWithValues: picked.map { ($0.backend, $0.audit) })
                }
            }
            try await database.execute("UPDATE discern.audit_settings SET rate = 1")
            #expect(try await completeAll() == ["discerner": true, "ooto": true], "'*' alone")
            try await database.execute("INSERT INTO discern.audit_settings (backend, rate) VALUES ('discerner', 0)")
            #expect(try await completeAll() == ["discerner": false, "ooto": true], "a backend's own row wins over '*'")
            try await database.execute("DELETE FROM discern.audit_settings")
            #expect(try await completeAll() == ["discerner": false, "ooto": false], "no setting: no audit")
        }
    }

    @Test(
        "in Chromium: the quality page has no figure until audit items are reviewed on the review page; then it shows them, with the calibration chart"
    )
    func reviewInBrowser() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                try await database.execute("UPDATE discern.audit_settings SET rate = 1")
                _ = try await ConsoleTests.seed(conninfo, folder)
                let audited = try await database.rows("SELECT id FROM discern.results WHERE audit ORDER BY id LIMIT 2", as: Int.self)
                try #require(audited.count == 2, "every result of the night is audited at rate 1")
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let audit = "[data-queue=audit] form[data-result=\"\(audited[0])\"]",
                    second = "[data-queue=audit] form[data-result=\"\(audited[1])\"]"
                let tour = try await BrowserSession.run([
                    .go(base + "/quality"), .text,
                    .go(base + "/review"), .click(audit + " button[value=confirm]"), .text,
                    // The correction is typed and sent with Enter, as a person does: it must be saved as typed.
                    .typeAndEnter(second + " input[name=license_plate]", "KA-9"), .text,
                    .go(base + "/quality"), .text, .screenshot(BrowserSession.screenshots.appendingPathComponent("quality.png").path)
                ])
                let before = tour.steps[1].text ?? "", confirmed = tour.steps[4].text ?? "", corrected = tour.steps[6].text ?? ""
                let after = tour.steps[8].text ?? ""
                #expect(before.contains("No audit review yet"), "\(before.prefix(600))")
                #expect(confirmed.contains("Confirmed; the next one is below.") && corrected.contains("Correction saved"), "\(corrected.prefix(600))")
                #expect(
                    after.contains("license_plate") && after.contains("50.0 %") && after.contains("100.0 %")
                        && !after.contains("No audit review yet"),
                    "one of two plates right, operators right: \(after.prefix(1200))")
                let reviews = try await database.rows(
                    "SELECT verdict, corrected_by FROM discern.corrections ORDER BY id", as: String.self, String.self
                ).map { verdict, correctedBy in
                    verdict + "/" + correctedBy
                }
                #expect(reviews == ["confirmed/local", "corrected/local"], "who and what: \(reviews)")
                let typed = try await database.rows("SELECT license_plate FROM discern.corrections WHERE result_id = \(audited[1])", as: String.self)
                #expect(typed.first == "KA-9", "the plate typed before Enter is what was stored")
                let chart = await RawHTTP.get(port: port, path: "/quality")
                #expect(chart.body.contains("<svg class=\"chart\"") && chart.body.contains("data-band="), "the calibration chart is drawn")

                // --review-below auto takes the measured threshold: two reviews promise nothing
                // short of reviewing everything, so 1.0.
                let (measured, measuredPort) = try await ConsoleTests.console(conninfo, folder, ["--review-below", "auto"])
                defer { measured.kill() }
                let queue = await RawHTTP.get(port: measuredPort, path: "/api/review")
                let threshold = (try? JSONSerialization.jsonObject(with: Data(queue.body.utf8)) as? [String: Any])?["threshold"] as? Double
                #expect(threshold == 1.0, "\(queue.body.prefix(300))")

                // The figures need no more than the reader role; `discern quality` as it too.
                try await ConsoleTests.withReaderRole(conninfo) { readerURL in
                    let (reader, readerPort) = try await ConsoleTests.console(readerURL, folder, ["--read-only"])
                    defer { reader.kill() }
                    let figures = await RawHTTP.get(port: readerPort, path: "/api/quality")
                    #expect(
                        figures.status == 200 && figures.body.contains("\"license_plate\"") && figures.body.contains("\"accuracy_low\""),
                        "\(figures.status) \(figures.body.prefix(300)) \(reader.output.suffix(600))")
                    let printed = try await Subprocess.run(try WorkerProcess.binary.path, ["quality", "--database-url", readerURL])
                    #expect(printed.contains("license_plate") && printed.contains("50.0 %"), "\(printed)")
                }
            }
        }
    }

    @Test("in Chromium: the review page by keyboard: j moves to the next card, c confirms it, x says cannot tell")
    func reviewByKeyboard() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let database = Database(conninfo: conninfo)
                try await database.execute("UPDATE discern.audit_settings SET rate = 1")
                _ = try await ConsoleTests.seed(conninfo, folder)
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                // Newest first: the first card is the newest audited result, the second the one before.
                let audited = try await database.rows(
                    "SELECT id FROM discern.results WHERE audit ORDER BY created_at DESC, id DESC LIMIT 2", as: Int.self)
                try #require(audited.count == 2)
                let tour = try await BrowserSession.run([
                    .go(base + "/review"), .text, .key("j", navigates: false), .key("c"), .text, .key("x")
                ])
                #expect(tour.steps[1].text?.contains("Keys:") == true)
                #expect(tour.steps[4].text?.contains("Confirmed; the next one is below.") == true, "\(tour.steps[4].text?.prefix(400) ?? "")")
                let verdicts = try await database.rows("SELECT result_id, verdict FROM discern.corrections ORDER BY id", as: Int.self, String.self)
                    .map { resultID, verdict in "\(resultID):\(verdict)" }
                #expect(verdicts.first == "\(audited[1]):confirmed", "j then c confirms the second card: \(verdicts) of \(audited)")
                #expect(verdicts.count == 2 && verdicts.last?.hasSuffix(":cannot_tell") == true, "\(verdicts)")
            }
        }
    }
}
