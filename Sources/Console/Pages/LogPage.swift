import Foundation
import QueueReads

/// Who did what: every retry, cancel, delete, pause, resume and review made through discern.
enum LogPage {
    static func render(_ page: OperatorLogPage, _ context: PageContext) -> Page {
        guard !page.items.isEmpty else {
            return Page(
                title: "Log", active: "/log", body: "<p class=\"muted\">Nobody has retried, cancelled, deleted, paused or reviewed anything yet.</p>")
        }
        let older: HTML =
            page.items.count >= OperatorLogPage.pageSize
            ? "<p><a href=\"/log\(HTML.query([("before", String(page.items[page.items.count - 1].id))]))\">Older →</a></p>" : ""
        return Page(
            title: "Log", active: "/log",
            body: """
                <p class="muted">Every retry, cancel, delete, pause, resume and review made through the console or the command line, newest first.</p>
                \(table(page.items))\(older)
                """)
    }

    /// Also the job page's "who acted on it".
    static func table(_ actions: [OperatorAction]) -> HTML {
        "<table><tr><th>when</th><th>who</th><th>did</th><th>on</th><th>jobs</th></tr>"
            + actions.map {
                "<tr><td>\(HTML.time($0.at))</td><td>\($0.actor)</td><td>\($0.action)</td><td>\($0.scope)</td><td class=\"n\">\(HTML.number($0.jobs))</td></tr>"
            }.joined()
            + "</table>"
    }
}
