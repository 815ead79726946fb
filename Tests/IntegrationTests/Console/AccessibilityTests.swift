import Foundation
import Postgres
import TestFixtures
import Testing

/// Every page as axe-core (Deque's accessibility rules, the engine behind Lighthouse's audit)
/// judges it in a real Chromium: no serious or critical violation.
@Suite("Console: accessibility", .integrationTimeLimit)
struct AccessibilityTests {
    @Test("axe-core finds no serious or critical violation on any page, on a desktop and on a 390 px phone, where no page scrolls sideways")
    func noSeriousViolation() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, _) = try await ConsoleTests.seed(conninfo, folder)
                let database = Database(conninfo: conninfo)
                try await database.execute("UPDATE discern.audit_settings SET rate = 1")
                // A trial of the seeded night, for the Trials pages.
                try await database.execute(
                    """
                    INSERT INTO discern.trials (name, backend, action, production_backend, production_action, batch_id, share, seed)
                    SELECT 'vision-next', 'discerner', 'analyze', 'discerner', 'analyze', id, 0.5, 1 FROM discern.batches
                    WHERE name = 'night-2026-11-22'
                    """)
                try await database.execute(
                    """
                    INSERT INTO discern.trial_results (trial_id, image_path, production_result_id, category, confidence, api_calls, analyze_ms,
                                                       model, raw_response)
                    SELECT t.id, r.image_path, r.id, r.category, r.confidence, 2, 10, 'vision-next', '{}'
                    FROM discern.trials t JOIN discern.results r ON r.batch_id = t.batch_id
                    """)
                // An erasure with a step, for the Erasures page.
                try await database.execute("SELECT * FROM discern.erase('photo', '/nowhere/x.jpg')")
                try await database.execute(
                    """
                    INSERT INTO discern.erasure_steps (request_id, step, backend, action, params, rounds, last_error_kind)
                    SELECT id, 1, 'ooto', 'delete', '{"templateId": "t"}', 2, 'auth_failed' FROM discern.erasure_requests
                    """)
                try await database.execute("UPDATE discern.erasure_requests SET state = 'in_progress', finished_at = NULL")
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let pages = [
                    "/", "/batches", "/results", "/jobs", "/jobs/\(fixable)", "/failures", "/review?below=1", "/quality",
                    "/report?batch=night-2026-11-22", "/plan?until=06:00", "/log", "/workers", "/trials", "/trials/vision-next", "/erasures"
                ]
                for width in [1280, 390] {
                    let tour = try await BrowserSession.run([.width(width)] + pages.flatMap { [BrowserSession.Step.go(base + $0), .axe] })
                    for (index, page) in pages.enumerated() {
                        let seen = tour.steps[2 * index + 2]
                        let serious = (seen.violations ?? []).filter { ["serious", "critical"].contains($0.impact ?? "") }
                        #expect(serious.isEmpty, "\(page) at \(width) px: \(serious.map(\.description).joined(separator: "\n"))")
                        #expect((seen.overflow ?? 1) <= 0, "\(page) at \(width) px scrolls sideways by \(seen.overflow ?? -1) px")
                    }
                }
            }
        }
    }
}
