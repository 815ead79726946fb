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
                _ = try await Database(conninfo: conninfo).rows("UPDATE discern.audit_settings SET rate = 1")
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let pages = [
                    "/", "/batches", "/results", "/jobs", "/jobs/\(fixable)", "/failures", "/review?below=1", "/quality",
                    "/report?batch=night-2026-11-22", "/plan?until=06:00", "/log", "/workers"
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
