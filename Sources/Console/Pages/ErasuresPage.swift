import Foundation
import QueueReads

/// Erasure requests (`discern erase`): each until every part is done, with the services' steps;
/// the key only as its kind and digest. Read-only: erasing is the erase role's, from the CLI or SQL.
enum ErasuresPage {
    static func render(_ log: ErasureLog, _ context: PageContext) -> Page {
        guard !log.requests.isEmpty else {
            return Page(
                title: "Erasures", active: "/erasures",
                body:
                    "<p>No erasure request yet. <code>discern erase --subject ID --dry-run</code> shows what one would remove (docs/operations.md).</p>"
            )
        }
        let rows = log.requests.map { request -> HTML in
            let removed = request.removed.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            let steps: HTML =
                request.steps.isEmpty
                ? "–" : request.steps.map { "<div>\(step($0))</div>" as HTML }.joined()
            let state: HTML =
                request.state == "done"
                ? "done \(HTML.time(request.finishedAt))" : "<span class=\"bad\">in progress</span>"
            return "<tr><td class=\"n\">\(request.id)</td><td>\(request.keyKind) <code>\(String(request.keyDigest.prefix(12)))…</code></td>" as HTML
                + "<td>\(request.requestedBy)</td><td>\(HTML.time(request.requestedAt))</td><td>\(state)</td>"
                + "<td>\(removed.isEmpty ? "nothing held" : removed)</td><td>\(steps)</td></tr>"
        }.joined()
        return Page(
            title: "Erasures", active: "/erasures",
            body: """
                <p class="muted">Erasure requests, newest first: what each removed, and each service's deletion of its copy. A request is done only when every service has deleted it. The key is kept only as a salted digest (docs/security.md).</p>
                <table><tr><th>request</th><th>key</th><th>asked by</th><th>asked</th><th>state</th><th>removed</th><th>services</th></tr>\(rows)</table>
                """)
    }

    static func step(_ step: ErasureLog.Request.Step) -> HTML {
        let name = "\(step.service) \(step.action)"
        if step.state == "done" { return "\(name): \(step.outcome ?? "done") \(HTML.time(step.doneAt))" }
        let trouble = (step.jobErrorKind ?? step.lastErrorKind).map { ", refused as \($0), round \(step.rounds)" } ?? ""
        return "\(name): waiting (job \(step.jobState ?? "being made")\(trouble))"
    }
}
