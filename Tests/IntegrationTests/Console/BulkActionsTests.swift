import Foundation
import JobQueue
import Postgres
import SampleImages
import TestFixtures
import Testing

/// What an operator does with many jobs at once: filter, tick, or act on everything the filter
/// matches after a page that says how many.
@Suite("Console: filters and bulk actions")
struct BulkActionsTests {
    @Test("in Chromium: a filter and 'retry all matching' retry exactly the jobs it matches, after a confirmation; ticked jobs are cancelled and no other")
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
                _ = try await database.rows("""
                    UPDATE discern.jobs j SET state = 'dead', finished_at = now(), attempts = 5,
                           error_kind = CASE WHEN j.image_path LIKE '%b4.jpg' THEN 'timeout' ELSE 'http_5xx' END
                    WHERE j.image_path ~ 'b[1-4]\\.jpg$' OR j.image_path LIKE '%b6.jpg'
                    """)
                func ids(_ condition: String) async throws -> [Int] {
                    try await database.rows("SELECT j.id FROM discern.jobs j JOIN discern.batches b ON b.id = j.batch_id WHERE \(condition) ORDER BY j.id")
                        .map { try $0.int("id") }
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
                    .click("form[action=\"/actions/retry\"] button.primary"), .text,
                ])
                let listed = tour.steps[1].text ?? "", asked = tour.steps[3].text ?? "", done = tour.steps[6].text ?? ""
                #expect(listed.contains("Retry all matching"), "\(listed.prefix(800))")
                #expect(asked.contains("Retry 3 job(s)") && asked.contains("batch night-a") && asked.contains("error kind http_5xx"), "\(asked.prefix(800))")
                #expect(done.contains("Re-queued 3 job(s)."), "\(done.prefix(600))")
                #expect(try await ids("j.state = 'available' AND j.attempts = 0 AND j.error_kind IS NOT NULL OR j.id = ANY(ARRAY[\(targeted.map(String.init).joined(separator: ","))]::bigint[]) AND j.state = 'available'") == targeted,
                        "exactly the three were retried")
                #expect(try await ids("j.state = 'dead'").count == 2, "the timeout of night-a and the http_5xx of night-b stay dead")

                // Tick two waiting jobs of night-b and cancel them.
                let waiting = try await ids("b.name = 'night-b' AND j.state = 'available'")
                try #require(waiting.count == 2)
                let ticked = try await BrowserSession.run([
                    .go(base + "/jobs?batch=night-b"), .screenshot(BrowserSession.screenshots.appendingPathComponent("jobs.png").path),
                    .tick("input[name=job][value=\"\(waiting[0])\"]"), .tick("input[name=job][value=\"\(waiting[1])\"]"),
                    .click("#selected button[formaction=\"/actions/cancel\"]"), .text,
                ])
                #expect(ticked.steps[5].text?.contains("Cancelled 2 job(s).") == true, "\(ticked.steps[5].text?.prefix(600) ?? "")")
                #expect(try await ids("j.state = 'cancelled'") == waiting)
                let log = try await database.rows("SELECT action, jobs, scope FROM discern.operator_actions ORDER BY id")
                    .map { "\(try $0.string("action")) \(try $0.int("jobs")) \(try $0.string("scope"))" }
                #expect(log == ["retry 3 batch night-a, kind http_5xx, state dead", "cancel 2 jobs \(waiting[0]), \(waiting[1])"], "\(log)")
            }
        }
    }
}
