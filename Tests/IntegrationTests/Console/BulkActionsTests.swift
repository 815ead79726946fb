import Foundation
import JobQueue
import Postgres
import SampleImages
import TestFixtures
import Testing

/// What an operator does with many jobs at once: filter, tick, or act on everything the filter
/// matches after a page that says how many.
@Suite("Console: filters and bulk actions", .integrationTimeLimit)
struct BulkActionsTests {
    @Test(
        "in Chromium: a filter and 'retry all matching' retry exactly the jobs it matches, after a confirmation; ticked jobs are cancelled and no other"
    )
    func filterRetryAndTick() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = try (1...8).map { try folder.write(SampleImages.photo(width: 160, height: 120, seed: 200 + $0), as: "b\($0).jpg") }
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in
                    _ = try JobQueue.enqueue(connection, paths: Array(photos[0..<5]), batch: "night-a")
                    _ = try JobQueue.enqueue(connection, paths: Array(photos[5..<8]), batch: "night-b")
                }
                // night-a: 3 dead of http_5xx, 1 dead of timeout, 1 waiting; night-b: 1 dead of http_5xx, 2 waiting.
                try await database.execute(
                    """
                    UPDATE discern.jobs j SET state = 'dead', finished_at = now(), attempts = 5,
                           error_kind = CASE WHEN j.image_path LIKE '%b4.jpg' THEN 'timeout' ELSE 'http_5xx' END
                    WHERE j.image_path ~ 'b[1-4]\\.jpg$' OR j.image_path LIKE '%b6.jpg'
                    """)
                func ids(_ condition: SQL) async throws -> [Int] {
                    try await database.rows(
                        "SELECT j.id FROM discern.jobs j JOIN discern.batches b ON b.id = j.batch_id WHERE \(condition) ORDER BY j.id", as: Int.self
                    )
                }
                let targeted = try await ids("b.name = 'night-a' AND j.error_kind = 'http_5xx'")
                try #require(targeted.count == 3)
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let tour = try await BrowserSession.run([
                    .go(base + "/jobs?batch=night-a&kind=http_5xx&state=dead"), .text,
                    .click("form[action=\"/actions/retry\"] input[name=back] ~ button"), .text,
                    .screenshot(BrowserSession.screenshots.appendingPathComponent("confirm.png").path),
                    .click("form[action=\"/actions/retry\"] button.primary"), .text
                ])
                let listed = tour.steps[1].text ?? "", asked = tour.steps[3].text ?? "", done = tour.steps[6].text ?? ""
                #expect(listed.contains("Retry all matching"), "\(listed.prefix(800))")
                #expect(
                    asked.contains("Retry 3 job(s)") && asked.contains("batch night-a") && asked.contains("error kind http_5xx"),
                    "\(asked.prefix(800))")
                #expect(done.contains("Retried 3 job(s)."), "\(done.prefix(600))")
                #expect(
                    try await ids(
                        "j.state = 'available' AND j.attempts = 0 AND j.error_kind IS NOT NULL OR j.id = ANY(\(targeted)::bigint[]) AND j.state = 'available'"
                    ) == targeted,
                    "exactly the three were retried")
                #expect(try await ids("j.state = 'dead'").count == 2, "the timeout of night-a and the http_5xx of night-b stay dead")

                // Tick two waiting jobs of night-b and cancel them.
                let waiting = try await ids("b.name = 'night-b' AND j.state = 'available'")
                try #require(waiting.count == 2)
                let ticked = try await BrowserSession.run([
                    .go(base + "/jobs?batch=night-b"), .screenshot(BrowserSession.screenshots.appendingPathComponent("jobs.png").path),
                    .tick("input[name=job][value=\"\(waiting[0])\"]"), .tick("input[name=job][value=\"\(waiting[1])\"]"),
                    .click("#selected button[formaction=\"/actions/cancel\"]"), .text
                ])
                #expect(ticked.steps[5].text?.contains("Cancelled 2 job(s).") == true, "\(ticked.steps[5].text?.prefix(600) ?? "")")
                #expect(try await ids("j.state = 'cancelled'") == waiting)
                let log = try await database.rows(
                    "SELECT action, jobs, scope FROM discern.operator_actions ORDER BY id", as: String.self, Int.self, String.self
                )
                .map { action, jobs, scope in "\(action) \(jobs) \(scope)" }
                #expect(log == ["retry 3 batch night-a, kind http_5xx, state dead", "cancel 2 jobs \(waiting[0]), \(waiting[1])"], "\(log)")
            }
        }
    }
}

extension BulkActionsTests {
    @Test(
        "in Chromium: a file-name and day filter finds its jobs; 'delete all matching' deletes its dead and cancelled jobs and no other, after a confirmation"
    )
    func findAndDelete() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let names = ["IMG_1001.jpg", "img_1002.jpg", "IMG_2001.jpg", "IMG_10_x.jpg", "IMGX1003.jpg"]
                let photos = try names.enumerated().map {
                    try folder.write(SampleImages.photo(width: 160, height: 120, seed: 300 + $0.offset), as: $0.element)
                }
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in _ = try JobQueue.enqueue(connection, paths: photos, batch: "find") }
                // IMG_1001 dead, img_1002 cancelled, IMG_10_x succeeded-like (waiting), IMGX1003 dead; IMG_2001 dead, a day earlier.
                try await database.execute(
                    """
                    UPDATE discern.jobs SET state = CASE WHEN image_path LIKE '%img_1002.jpg' THEN 'cancelled' ELSE 'dead' END,
                           finished_at = now(), error_kind = 'unsupported_image'
                    WHERE image_path !~ 'IMG_10_x'
                    """)
                try await database.execute(
                    "UPDATE discern.jobs SET created_at = created_at - interval '1 day' WHERE image_path LIKE '%IMG_2001.jpg'")
                let today = try await database.value("SELECT current_date::text", as: String.self)
                func files(_ condition: SQL) async throws -> [String] {
                    try await database.rows("SELECT image_path FROM discern.jobs WHERE \(condition) ORDER BY image_path", as: String.self)
                        .map { URL(fileURLWithPath: $0).lastPathComponent }
                }
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                // "img_10" is a literal start, case aside: IMG_1001, img_1002, IMG_10_x; not IMGX1003 (_ is no wildcard), not IMG_2001.
                let listing = "http://127.0.0.1:\(port)/jobs?file=img_10&from=\(today)&to=\(today)"
                let tour = try await BrowserSession.run([
                    .go(listing), .text,
                    .click("form[action=\"/actions/delete\"] input[name=back] ~ button"), .text,
                    .click("form[action=\"/actions/delete\"] button.primary"), .text
                ])
                let listed = tour.steps[1].text ?? "", asked = tour.steps[3].text ?? "", done = tour.steps[5].text ?? ""
                #expect(
                    listed.contains("IMG_1001.jpg") && listed.contains("img_1002.jpg") && listed.contains("IMG_10_x.jpg")
                        && !listed.contains("IMGX1003") && !listed.contains("IMG_2001"), "\(listed.prefix(1200))")
                #expect(
                    asked.contains("Delete 2 job(s)") && asked.contains("file name starting img_10") && asked.contains("1 available"),
                    "\(asked.prefix(800))")
                #expect(done.contains("Deleted 2 job(s)."), "\(done.prefix(600))")
                #expect(
                    try await files("true") == ["IMGX1003.jpg", "IMG_10_x.jpg", "IMG_2001.jpg"].sorted(),
                    "the waiting job and the jobs outside the filter stay")
                let log = try await database.rows(
                    "SELECT action, jobs, scope FROM discern.operator_actions ORDER BY id", as: String.self, Int.self, String.self
                )
                .map { action, jobs, scope in "\(action) \(jobs) \(scope)" }
                #expect(log == ["delete 2 file img_10…, from \(today), to \(today)"], "\(log)")

                // The CLI: the same filter, and a delete never touches a job that is not over.
                let binary = try WorkerProcess.binary.path
                let listedByCLI = try await Subprocess.run(binary, ["jobs", "--database-url", conninfo, "--file", "IMG_20"])
                #expect(listedByCLI.contains("IMG_2001.jpg") && !listedByCLI.contains("IMG_10_x"), "\(listedByCLI)")
                let deleted = try await Subprocess.run(binary, ["delete", "--database-url", conninfo, "--batch", "find"])
                #expect(deleted.contains("deleted 2 job(s)") && deleted.contains("left alone: 1 available"), "\(deleted)")
                #expect(try await files("true") == ["IMG_10_x.jpg"])
            }
        }
    }
}
