import ErrorCodes
import Foundation
import QueueReads

/// Page 5: dead jobs by kind with the message to act on; retry or cancel one job, a kind, a batch.
enum FailuresPage {
    static func render(_ data: Failures, notice: String?, _ context: PageContext) -> Page {
        var parts: [HTML] = []
        if let notice { parts.append("<p class=\"notice\">\(notice)</p>") }
        parts.append("<h2>Dead jobs by error kind</h2>")
        parts.append(
            data.kinds.isEmpty
                ? "<p class=\"ok\">No dead jobs.</p>"
                : "<table><tr><th>service</th><th>error kind</th><th>jobs</th><th>what it says</th><th></th></tr>"
                    + data.kinds.map { kind -> HTML in
                        let fields = [("service", kind.service)] + (kind.errorKind.map { [("kind", $0)] } ?? [])
                        let permanent = kind.errorKind.map(JobPage.fileIsTheProblem) ?? false
                        let advice: HTML =
                            kind.errorKind.flatMap(FailureKind.named).map { "<br><span class=\"muted\">\(HTML.text($0.advice))</span>" } ?? ""
                        let note: HTML =
                            advice
                            + (permanent
                                ? "<br><span class=\"bad\">The file itself is the problem: retrying will not fix it unless the file is replaced.</span>"
                                : "")
                        let retry = context.action(
                            "/actions/retry", "Retry all \(kind.jobs)", fields: fields,
                            named: "Retry all \(kind.jobs) \(kind.errorKind ?? "") jobs of \(kind.service)")
                        return
                            "<tr><td>\(kind.service)</td><td>\(kind.errorKind ?? "–")</td><td class=\"n\"><a href=\"/jobs\(HTML.query([("service", kind.service), ("state", "dead")] + (kind.errorKind.map { [("kind", $0)] } ?? [])))\">\(HTML.number(kind.jobs))</a></td><td>\(kind.example)\(note)</td><td>\(retry)</td></tr>"
                    }.joined() + "</table>")
        parts.append("<h2>Failing now (waiting to be tried again)</h2>")
        parts.append(
            lines(
                data.failing, button: { context.action("/actions/cancel", "Cancel", fields: [("job", String($0.id))], named: "Cancel job \($0.id)") },
                empty: "No job is waiting for a retry."))
        parts.append("<h2>Newest dead jobs</h2>")
        parts.append(
            lines(
                data.recentDead, button: { context.action("/actions/retry", "Retry", fields: [("job", String($0.id))], named: "Retry job \($0.id)") },
                empty: "None."))
        return Page(title: "Failures", active: "/failures", body: parts.joined(separator: "\n"))
    }

    private static func lines(_ jobs: [Failures.JobLine], button: (Failures.JobLine) -> HTML, empty: String) -> HTML {
        guard !jobs.isEmpty else { return "<p class=\"muted\">\(empty)</p>" }
        return "<table><tr><th>job</th><th>file</th><th>batch</th><th>tries</th><th>error</th><th>when</th><th></th></tr>"
            + jobs.map { job -> HTML in
                "<tr><td><a href=\"/jobs/\(job.id)\">\(job.id)</a></td><td>\(URL(fileURLWithPath: job.imagePath).lastPathComponent)</td><td>\(job.batch ?? "–")</td><td>\(job.attempts)/\(job.maxAttempts)</td><td><span class=\"bad\">\(job.errorKind ?? "–")</span> \(job.lastError)</td><td>\(job.at ?? "–")</td><td>\(button(job))</td></tr>"
            }.joined() + "</table>"
    }
}
