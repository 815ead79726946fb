import Foundation
import Postgres
import Simulator
import TestFixtures
import Testing

/// An operator leaves a page open through the night: what it shows follows the queue, pushed
/// by the console (server-sent events fed by PostgreSQL's NOTIFY), without a reload.
@Suite("Console: live pages", .integrationTimeLimit)
struct LiveUpdateTests {
    @Test("in Chromium, with a real worker: an open job page shows the job succeed without reloading")
    func pageFollowsTheJob() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(2, into: conninfo, folder: folder, batch: "live")
                let database = Database(conninfo: conninfo)
                let id = try #require(try await database.value("SELECT min(id) FROM discern.jobs", as: Int?.self))
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let ready = folder.appendingPathComponent("browser-ready")
                // The page is opened and marked before any worker runs; the mark is gone if it reloads.
                // It waits for the job's success to show, 600 s only as a hang guard: under the
                // whole suite with busy cores, the job can still be running after 90 s.
                let browser = Task {
                    try await BrowserSession.run([
                        .go("http://127.0.0.1:\(port)/jobs/\(id)"), .eval("window.discernMark = 'not reloaded'"), .text, .signal(ready.path),
                        .waitForText("succeeded", seconds: 600), .eval("window.discernMark"), .text
                    ])
                }
                #expect(
                    await Poll.until { FileManager.default.fileExists(atPath: ready.path) }, "the browser opened the page")
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--concurrency", "2"])
                    defer { worker.kill() }
                    let seen = try await browser.value
                    let before = seen.steps[2].text ?? "", after = seen.steps[6].text ?? ""
                    #expect(before.contains("available") && !before.contains("succeeded"), "\(before.prefix(600))")
                    #expect(seen.steps[4].found == true, "the page showed the job succeed: \(after.prefix(600))")
                    #expect(seen.steps[5].value == "not reloaded", "the page updated in place, not by reloading")
                }
            }
        }
    }

    @Test("/events sends one event for each change of the jobs, and none besides")
    func eventStream() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(1, into: conninfo, folder: folder, batch: "events")
                // No refresh on the clock: only the cancel may send an event, however long the
                // steps take on a starved machine (the 30 s default can fire inside the quiet
                // window).
                let (console, port) = try await ConsoleTests.console(conninfo, folder, ["--refresh-seconds", "86400"])
                defer { console.kill() }
                // Once the console listens (its first look counts as a change), curl holds the
                // stream open; once it is open a job is cancelled, and once its event came another
                // change follows. Each step waits for the one before, however
                // slow the machine (a stream of fixed length can end before a starved console speaks).
                let database = Database(conninfo: conninfo)
                #expect(
                    await Poll.until {
                        (try? await database.value(
                            """
                            SELECT count(*) FROM pg_stat_activity
                            WHERE datname = current_database() AND application_name = 'discern-listen' AND state = 'idle'
                              AND query = 'LISTEN discern_jobs'
                            """, as: Int.self
                        )) == 1
                    }, "the console listens")
                let received = folder.appendingPathComponent("events.txt")
                let curl = Process()
                curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                curl.arguments = ["-sN", "--max-time", "600", "-o", received.path, "http://127.0.0.1:\(port)/events"]
                try curl.run()
                defer { if curl.isRunning { curl.terminate() } }
                let read = { (try? String(contentsOf: received, encoding: .utf8)) ?? "" }
                #expect(await Poll.until { read().contains("retry: 3000") }, "the stream opened")
                try await database.execute("SELECT discern.cancel(ARRAY(SELECT id FROM discern.jobs))")
                #expect(await Poll.until { read().contains("event: change") }, "a change was sent")
                // A second change, once the first's event came: a repeat of the first would reach
                // the stream before the second's event (one listener, one stream, in order).
                try await ChaosJobs.enqueue(1, into: conninfo, folder: folder, batch: "events-2")
                let changes = { read().components(separatedBy: "event: change").count - 1 }
                #expect(await Poll.until { changes() >= 2 }, "the second change was sent")
                curl.terminate()
                let output = read()
                #expect(output.hasPrefix("retry: 3000"), "\(output)")
                #expect(changes() == 2, "two changes, two events: \(output)")
            }
        }
    }
}
