import Foundation
import Postgres
import Simulator
import TestFixtures
import Testing

/// An operator stops a service's work for a while (a quota spent, the service down) without
/// cancelling anything, and starts it again.
@Suite("Console: pause and resume a service", .integrationTimeLimit)
struct PauseTests {
    @Test(
        "in Chromium, with a real worker: after Pause it claims nothing, with room and jobs waiting, while jobs in flight finish; Resume starts them again; who paused it shows"
    )
    func pauseAndResume() async throws {
        var configuration = SimulatorConfiguration.unthrottled
        configuration.faults.analyzeDelaySeconds = 0.3
        // The analyses wait until the pause is clicked: on a loaded machine the worker once
        // finished all 40 jobs before Chromium had the page.
        configuration.faults.holdAnalyses = true
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                try await ChaosJobs.enqueue(40, into: conninfo, folder: folder)
                let database = Database(conninfo: conninfo)
                try await TestSimulator.with(configuration) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--concurrency", "2", "--log-level", "debug"])
                    defer { worker.kill() }
                    #expect(await Announcements.until(conninfo) { await database.jobCount(where: "attempts > 0") >= 2 })
                    let (console, port) = try await ConsoleTests.console(conninfo, folder)
                    defer { console.kill() }
                    let base = "http://127.0.0.1:\(port)"

                    let paused = try await BrowserSession.run([
                        .go(base + "/"), .click("form[action=\"/actions/pause\"] button"), .text,
                        .screenshot(BrowserSession.screenshots.appendingPathComponent("overview-paused.png").path)
                    ])
                    await simulator.releaseAnalyses()
                    #expect(await Announcements.until(conninfo) { await database.jobCount(where: "state = 'running'") == 0 }, "jobs in flight finish")
                    // Proved by what the worker did, not by a wait that saw nothing: holding no job,
                    // with room for more and jobs waiting, it looked and claimed none. (Before the
                    // pause, a worker with room and 40 jobs queued always takes some.)
                    #expect(await worker.heldNothingAndClaimedNothing(), "\(worker.output.suffix(1500))")
                    let claimedAtPause = await database.jobCount(where: "attempts > 0")
                    #expect(claimedAtPause < 40, "the pause came while jobs waited")
                    #expect(await database.jobCount(where: "state IN ('dead', 'cancelled')") == 0)
                    let text = paused.steps[2].text ?? ""
                    #expect(
                        text.contains("discerner is paused") && text.contains("by local") && text.contains("Resume discerner"), "\(text.prefix(800))")
                    // The workers page: the worker, live, serving discerner.
                    let workers = try await BrowserSession.run([
                        .go(base + "/workers"), .text,
                        .screenshot(BrowserSession.screenshots.appendingPathComponent("workers.png").path)
                    ])
                    let listed = workers.steps[1].text ?? ""
                    #expect(listed.contains("live") && listed.contains("discerner") && listed.contains("pid \(worker.pid)"), "\(listed.prefix(800))")
                    let status = try await Subprocess.run(try WorkerProcess.binary.path, ["status", "--database-url", conninfo])
                    #expect(status.contains("paused: discerner by local"), "\(status)")
                    #expect(await database.jobCount(where: "attempts > 0") == claimedAtPause, "nothing was claimed while the pages were read")

                    _ = try await BrowserSession.run([.go(base + "/"), .click("form[action=\"/actions/resume\"] button"), .text])
                    #expect(
                        await Announcements.until(conninfo) { await database.jobCount(where: "state = 'succeeded'") == 40 },
                        "\(worker.output.suffix(800))")
                    // Its pace, from its heartbeats: every job it finished, at a rate above nothing.
                    #expect(
                        await Poll.until {
                            (try? await database.rows("SELECT jobs_finished FROM discern.workers WHERE jobs_per_minute > 0", as: Int.self).first)
                                == 40
                        }, "the workers page counts what the worker finished")
                    let log = try await database.rows(
                        "SELECT actor, action, scope FROM discern.operator_actions ORDER BY id", as: String.self, String.self, String.self
                    )
                    .map { actor, action, scope in "\(actor) \(action) \(scope)" }
                    #expect(log == ["local pause service discerner", "local resume service discerner"], "\(log)")
                }
            }
        }
    }
}
