import Foundation

/// A real headless Chromium driven by scripts/browser.py (the DevTools protocol): steps in,
/// what each step saw out, plus every JavaScript dialog any page opened.
struct BrowserSession {
    struct Seen: Decodable {
        let url: String?
        let text: String?
        let found: Bool?
        let violations: [Violation]?
        let overflow: Int?
        /// What an `.eval` step's expression gave, as text.
        let value: String?
    }
    /// One axe-core rule a page breaks.
    struct Violation: Decodable, CustomStringConvertible {
        let id: String
        let impact: String?
        let help: String
        let nodes: Int
        let target: String
        let html: String
        var description: String { "\(impact ?? "?") \(id) (\(nodes)x, e.g. \(target): \(html)): \(help)" }
    }
    struct Outcome: Decodable {
        let steps: [Seen]
        let dialogs: [String]
    }

    enum Step {
        case go(String)
        case text
        case click(String)
        /// Clicks what leads nowhere (a checkbox): no page to wait for.
        case tick(String)
        case fill(String, String)
        /// Types into an input, then presses Enter: a person's way of submitting a form.
        case typeAndEnter(String, String)
        case screenshot(String)
        /// axe-core's accessibility rules on the current page.
        case axe
        /// The window's width from now on (under 800 px: a phone).
        case width(Int)
        /// A key pressed on the page; `navigates`: wait for the page it leads to.
        case key(String, navigates: Bool = true)
        /// A JavaScript expression evaluated on the page; what it gives is `Seen.value`.
        case eval(String)
        /// Writes an empty file at the path: the test's cue that the browser got this far.
        case signal(String)
        /// Waits up to `seconds` for the page's text to contain the text (`Seen.found`), touching nothing.
        case waitForText(String, seconds: Int)

        var json: [String: Any] {
            switch self {
            case .go(let url): ["go": url]
            case .text: ["text": true]
            case .click(let selector): ["click": selector]
            case .tick(let selector): ["click": selector, "navigates": false]
            case .fill(let selector, let value): ["fill": selector, "value": value]
            case .typeAndEnter(let selector, let value): ["type": selector, "value": value]
            case .screenshot(let path): ["screenshot": path]
            case .axe: ["axe": true]
            case .width(let pixels): ["width": pixels]
            case .key(let key, let navigates): ["key": key, "navigates": navigates]
            case .eval(let expression): ["eval": expression]
            case .signal(let path): ["signal": path]
            case .waitForText(let text, let seconds): ["wait_text": text, "seconds": seconds]
            }
        }
    }

    static func run(_ steps: [Step]) async throws -> Outcome {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("discern-browser-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: steps.map(\.json)).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let script = ChaosJobs.repository.appendingPathComponent("scripts/browser.py").path
        let run = try await Subprocess.runWithStatus("/bin/bash", ["-c", "python3 '\(script)' < '\(input.path)' 2>/dev/null"])
        guard run.status == 0, let line = run.output.split(separator: "\n").last else {
            throw TestSetupError("the browser failed (\(run.status)): \(run.output.suffix(1500))")
        }
        return try JSONDecoder().decode(Outcome.self, from: Data(line.utf8))
    }

    /// Where screenshots go: $DISCERN_SCREENSHOTS, else .build/console-screenshots.
    static var screenshots: URL {
        ProcessInfo.processInfo.environment["DISCERN_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? ChaosJobs.repository.appendingPathComponent(".build/console-screenshots")
    }
}
