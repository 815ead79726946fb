import Foundation
import JobQueue
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// `discern console` as a person meets it: a real headless Chromium against a running console
/// on a database a real worker filled (docs/console.md shows the screenshots this saves).
@Suite("Console", .integrationTimeLimit)
struct ConsoleTests {
    /// A night's batch: good photos, a corrupt file (dead for good), and a photo whose job died
    /// of a service timeout (retry fixes it); one result's operator is markup.
    static func seed(_ conninfo: String, _ folder: URL) async throws -> (fixable: Int, markup: Int) {
        let photos = try (1...6).map { try folder.write(SampleImages.photo(width: 640, height: 480, seed: 40 + $0), as: "truck-\($0).jpg") }
        let broken = try folder.write(Data("not a photo".utf8), as: "broken.jpg")
        let database = Database(conninfo: conninfo)
        try await database.withConnection { try JobQueue.enqueue($0, paths: photos + [broken], batch: "night-2026-11-22") }
        try await TestSimulator.with(.unthrottled) { try await TestWorker.drain(conninfo, simulator: $0) }
        let late = try folder.write(SampleImages.photo(width: 640, height: 480, seed: 77), as: "late.jpg")
        let fixable = try await database.withConnection { connection -> Int in
            try JobQueue.enqueue(connection, paths: [late], batch: "night-2026-11-22")
            return try connection.rows(
                """
                UPDATE discern.jobs SET state = 'dead', attempts = 5, finished_at = now(), error_kind = 'timeout',
                       last_error = 'Image Discerner did not answer within 300 s (5 attempts)'
                WHERE image_path = \(late) RETURNING id
                """, as: Int.self
            ).first ?? 0
        }
        let markup =
            try await database.rows(
                """
                UPDATE discern.results SET operator = '<script>alert(1)</script>', license_plate = '<img src=x onerror=alert(2)>'
                WHERE id = (SELECT min(id) FROM discern.results) RETURNING id
                """, as: Int.self
            ).first ?? 0
        return (fixable, markup)
    }

    static func console(
        _ conninfo: String, _ folder: URL, _ extra: [String] = [], environment: [String: String] = [:]
    ) async throws -> (WorkerProcess, Int) {
        let process = try WorkerProcess(
            conninfo: conninfo, simulatorURL: "", logFolder: folder,
            arguments: [
                "--database-url", conninfo, "--port", "0", "--path-root", folder.path,
                "--log-format", "json", "--log-level", "notice"
            ] + extra,
            environment: environment, plainArguments: true, command: "console")
        guard let port = await process.announcedMetricsPort(key: "console_port") else {
            process.kill()
            throw TestSetupError("the console did not start: \(process.output.suffix(1000))")
        }
        return (process, port)
    }

    @Test(
        "every page loads with its content, markup from the database stays text, a dead job retried from the page is completed, a correction reaches the reviewed view"
    )
    func pagesInChromium() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, markup) = try await Self.seed(conninfo, folder)
                let (console, port) = try await Self.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let shots = BrowserSession.screenshots
                let tour = try await BrowserSession.run([
                    .go(base + "/"), .text, .screenshot(shots.appendingPathComponent("overview.png").path),
                    .go(base + "/batches"), .text, .screenshot(shots.appendingPathComponent("batches.png").path),
                    .go(base + "/results"), .text, .screenshot(shots.appendingPathComponent("results.png").path),
                    .go(base + "/results/\(markup)"), .text, .screenshot(shots.appendingPathComponent("job.png").path),
                    .go(base + "/failures"), .text, .screenshot(shots.appendingPathComponent("failures.png").path),
                    .go(base + "/review?below=1"), .text, .screenshot(shots.appendingPathComponent("review.png").path)
                ])
                let texts = tour.steps.compactMap(\.text)
                #expect(texts.count == 6)
                #expect(
                    texts[0].contains("Jobs by service and state") && texts[0].contains("Rate limits")
                        && texts[0].contains("image_unsupported_format"), "\(texts[0])")
                #expect(texts[1].contains("night-2026-11-22") && texts[1].contains("6 succeeded"), "\(texts[1])")
                #expect(texts[2].contains("plate") && texts[2].contains("<script>alert(1)</script>"), "markup shows as text: \(texts[2].prefix(600))")
                #expect(
                    texts[3].contains("Every entity the service returned") && texts[3].contains("What preparation did")
                        && texts[3].contains("The service's answer") && texts[3].contains("<img src=x onerror=alert(2)>"), "\(texts[3].prefix(800))")
                #expect(texts[4].contains("timeout") && texts[4].contains("did not answer within 300 s"), "\(texts[4].prefix(800))")
                #expect(texts[5].contains("Confirm") && texts[5].contains("Save correction"), "\(texts[5].prefix(600))")
                #expect(tour.dialogs.isEmpty, "a page ran script from the database: \(tour.dialogs)")
                // The console's own markup never shows as text (escaped twice), on any page.
                let rest = try await BrowserSession.run(
                    [
                        "/jobs", "/jobs?state=dead&batch=night-2026-11-22", "/plan?until=06:00", "/workers",
                        "/quality", "/report?batch=night-2026-11-22", "/log", "/jobs/999999"
                    ]
                    .flatMap { [BrowserSession.Step.go(base + $0), .text] })
                for text in texts + rest.steps.compactMap(\.text) {
                    let leaked = [
                        "<td", "<tr", "<th", "<a ", "<span", "<p>", "<p ", "<b>", "<br", "<div", "<option", "<input", "<form", "<time", "<svg",
                        "<rect"
                    ]
                    .filter { text.contains($0) }
                    #expect(leaked.isEmpty, "markup shown as text: \(leaked) in \(text.prefix(400))")
                }

                // Retry the fixable job from its page; a worker then completes it.
                let retried = try await BrowserSession.run([
                    .go(base + "/jobs/\(fixable)"), .click("form[action=\"/actions/retry\"] button"), .text
                ])
                #expect(
                    retried.steps[1].found == true && retried.steps[2].text?.contains("Retried 1 job(s)") == true,
                    "\(retried.steps.last?.text ?? "")")
                let database = Database(conninfo: conninfo)
                #expect(try await database.value("SELECT state FROM discern.jobs WHERE id = \(fixable)", as: String.self) == "available")
                try await TestSimulator.with(.unthrottled) { try await TestWorker.drain(conninfo, simulator: $0) }
                #expect(try await database.value("SELECT state FROM discern.jobs WHERE id = \(fixable)", as: String.self) == "succeeded")
                // Who retried it, on the job's page, in `discern jobs show` and on the log page.
                let trail = try await BrowserSession.run([
                    .go(base + "/jobs/\(fixable)"), .text, .go(base + "/log"), .text,
                    .screenshot(BrowserSession.screenshots.appendingPathComponent("log.png").path)
                ])
                #expect(
                    trail.steps[1].text?.contains("Who acted on it") == true && trail.steps[1].text?.contains("local\tretry\tjob \(fixable)") == true,
                    "\(trail.steps[1].text?.prefix(1500) ?? "")")
                #expect(
                    trail.steps[3].text?.contains("local\tretry\tjob \(fixable)") == true && trail.steps[3].text?.contains(" s ago") == true,
                    "moments read as how long ago: \(trail.steps[3].text?.prefix(800) ?? "")")
                let sheet = try await Subprocess.run(try WorkerProcess.binary.path, ["jobs", "show", "\(fixable)", "--database-url", conninfo])
                #expect(sheet.contains("who acted on it:") && sheet.contains("local retry job \(fixable) (1 job(s))"), "\(sheet)")

                // Correct the first reading on the review page.
                let first = try #require(
                    try await database.rows(
                        """
                        SELECT id FROM discern.results WHERE confidence < 1 ORDER BY confidence, id LIMIT 1
                        """, as: Int.self
                    ).first)
                let reviewed = try await BrowserSession.run([
                    .go(base + "/review?below=1"),
                    .fill("form[data-result=\"\(first)\"] input[name=license_plate]", "KA-1234"),
                    .click("form[data-result=\"\(first)\"] button[value=correct]"), .text
                ])
                #expect(
                    reviewed.steps[2].found == true && reviewed.steps[3].text?.contains("Correction saved") == true,
                    "\(reviewed.steps.last?.text ?? "")")
                let view: [(licensePlate: String, readLicensePlate: String?, reviewed: Bool, reviewedBy: String)] = try await database.rows(
                    "SELECT license_plate, read_license_plate, reviewed, reviewed_by FROM discern.reviewed_results WHERE result_id = \(first)",
                    as: String.self, String?.self, Bool.self, String.self)
                #expect(
                    view.first?.licensePlate == "KA-1234" && view.first?.reviewed == true
                        && view.first?.reviewedBy == "local", "\(view)")
            }
        }
    }

    @Test("each page has a JSON twin under /api/")
    func apiTwins() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, _) = try await Self.seed(conninfo, folder)
                let (console, port) = try await Self.console(conninfo, folder)
                defer { console.kill() }
                for (path, key) in [
                    ("/api/overview", "states"), ("/api/batches", "name"), ("/api/results?batch=night-2026-11-22", "items"),
                    ("/api/jobs/\(fixable)", "job"), ("/api/failures", "kinds"), ("/api/review?below=1", "items")
                ] {
                    let response = await RawHTTP.get(port: port, path: path)
                    #expect(
                        response.status == 200 && response.body.contains("\"\(key)\""), "\(path): \(response.status) \(response.body.prefix(300))")
                }
            }
        }
    }

    @Test(
        "without the token, a request from anywhere but 127.0.0.1 is refused; with it, served; --read-only makes everyone a viewer and works as discern_reader"
    )
    func accessControl() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, _) = try await Self.seed(conninfo, folder)
                let token = "t0ken-\(UUID().uuidString)"
                let (guarded, port) = try await Self.console(conninfo, folder, ["--host", "0.0.0.0"], environment: ["DISCERN_CONSOLE_TOKEN": token])
                defer { guarded.kill() }
                #expect(await RawHTTP.get(port: port, path: "/", from: "127.0.0.2").status == 401)
                #expect(
                    await RawHTTP.get(port: port, path: "/api/overview", from: "127.0.0.2", headers: ["Authorization": "Bearer wrong"]).status == 401)
                #expect(
                    await RawHTTP.get(port: port, path: "/api/overview", from: "127.0.0.2", headers: ["Authorization": "Bearer \(token)"]).status
                        == 200)
                let forged = await RawHTTP.post(
                    port: port, path: "/actions/retry", body: "job=\(fixable)", from: "127.0.0.2",
                    headers: ["Authorization": "Bearer \(token)"])
                #expect(forged.status == 403, "an action without the form's CSRF token is refused: \(forged.status)")

                let open = try await Subprocess.runWithStatus(
                    try WorkerProcess.binary.path,
                    [
                        "console", "--database-url", conninfo, "--host", "0.0.0.0",
                        "--path-root", folder.path
                    ])
                #expect(open.status == 64 && open.output.contains("DISCERN_CONSOLE_TOKEN"), "\(open.output)")

                // The reader role: pages, but no raw answers and no actions.
                let succeeded = try #require(
                    try await Database(conninfo: conninfo).value("SELECT min(job_id) FROM discern.results", as: Int?.self))
                try await Self.withReaderRole(conninfo) { readerURL in
                    let (reader, readerPort) = try await Self.console(readerURL, folder, ["--read-only"])
                    defer { reader.kill() }
                    let page = await RawHTTP.get(port: readerPort, path: "/jobs/\(succeeded)")
                    #expect(
                        page.status == 200 && page.body.contains("Not shown: raw answers") && !page.body.contains("<form"),
                        "\(page.status) \(page.body.prefix(500)) \(reader.output.suffix(800))")
                    #expect(await RawHTTP.post(port: readerPort, path: "/actions/retry", body: "job=\(fixable)").status == 403)
                }
            }
        }
    }

    /// A login role in discern_reader for the body's duration (roles are cluster-wide: dropped after).
    static func withReaderRole(_ conninfo: String, _ body: (String) async throws -> Void) async throws {
        let role = "reader_\(UUID().uuidString.prefix(8).lowercased())"
        let database = Database(conninfo: conninfo)
        try await database.execute("CREATE ROLE \(unescaped: role) LOGIN IN ROLE discern_reader")
        do {
            try await body(conninfo.replacingOccurrences(of: "://discern@", with: "://\(role)@"))
        } catch {
            _ = try? await database.execute("DROP ROLE IF EXISTS \(unescaped: role)")
            throw error
        }
        try await database.execute("DROP ROLE IF EXISTS \(unescaped: role)")
    }
}
