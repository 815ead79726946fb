import Foundation
import JobQueue
import Postgres
import SampleImages
import TestFixtures
import Testing

/// An operator opening the console when nothing moves must be told why, at once.
@Suite("Console: why nothing moves", .integrationTimeLimit)
struct NothingMovesTests {
    @Test("in Chromium: jobs wait and no worker lives: the Overview raises the alarm, a batch shows no ETA; a batch cancelled whole says so")
    func noLiveWorker() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = try (1...6).map { try folder.write(SampleImages.photo(width: 320, height: 240, seed: 90 + $0), as: "p\($0).jpg") }
                let database = Database(conninfo: conninfo)
                try await database.withConnection { connection in
                    _ = try JobQueue.enqueue(connection, paths: Array(photos.prefix(3)), batch: "stalled")
                    _ = try JobQueue.enqueue(connection, paths: Array(photos.suffix(3)), batch: "dropped")
                    _ = try JobControl.apply(.cancel, connection, .init(batch: "dropped"), by: "test")
                }
                // A rate from the last minutes (a worker that just died) must not turn into an ETA.
                try await database.execute(
                    """
                    UPDATE discern.jobs SET state = 'succeeded', finished_at = now() - interval '1 minute'
                    WHERE id = (SELECT min(id) FROM discern.jobs WHERE batch_id = (SELECT id FROM discern.batches WHERE name = 'stalled'))
                    """)
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let tour = try await BrowserSession.run([
                    .go(base + "/"), .text, .screenshot(BrowserSession.screenshots.appendingPathComponent("overview-alarm.png").path),
                    .go(base + "/batches"), .text,
                    // A whole batch is acted on only after a page that says how many, and what.
                    .click("form[action=\"/actions/cancel\"] button"), .text,
                    .click("form[action=\"/actions/cancel\"] button.primary"), .text
                ])
                let overview = tour.steps[1].text ?? "", batches = tour.steps[4].text ?? ""
                #expect(overview.contains("Nothing is being analysed") && overview.contains("2 for discerner"), "\(overview.prefix(800))")
                #expect(batches.contains("not moving: no live worker") && !batches.contains("done in"), "\(batches.prefix(1200))")
                #expect(
                    batches.contains("3 cancelled") && !batches.contains("finished"),
                    "the batch cancelled whole says cancelled, not finished: \(batches.prefix(1200))")
                let asked = tour.steps[6].text ?? "", done = tour.steps[8].text ?? ""
                #expect(
                    asked.contains("Cancel these jobs?") && asked.contains("Cancel 2 job(s)") && asked.contains("stalled")
                        && asked.contains("1 succeeded"), "\(asked.prefix(800))")
                #expect(done.contains("Cancelled 2 job(s)."), "the notice shows on the batches page: \(done.prefix(800))")
                let left = try await database.value("SELECT count(*) FROM discern.jobs WHERE state = 'cancelled'", as: Int.self)
                #expect(left == 5)
            }
        }
    }
}
