import Foundation
import QueueReads

/// One batch's report: what `discern report --batch NAME` prints as Markdown.
enum ReportPage {
    static func render(_ report: BatchReport, _ context: PageContext) -> Page {
        // Every count links to its jobs (pending is two states, available and running: not linked).
        func jobs(_ count: Int, _ service: String, state: String? = nil, kind: String? = nil) -> HTML {
            let query = HTML.query([("batch", report.batch), ("service", service), ("state", state), ("kind", kind)])
            return "<a href=\"/jobs\(query)\">\(HTML.number(count))</a>"
        }
        let rows = report.services.map { service -> HTML in
            let outcomes = service.outcomes.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\($0.key) \(HTML.number($0.value))" }.joined(separator: ", ")
            let name = service.service
            return """
                <tr><td>\(name)</td><td class="n">\(jobs(service.jobs, name))</td>\
                <td class="n">\(jobs(service.succeeded, name, state: "succeeded"))</td><td class="n">\(jobs(service.dead, name, state: "dead"))</td>\
                <td class="n">\(jobs(service.cancelled, name, state: "cancelled"))</td><td class="n">\(HTML.number(service.pending))</td>\
                <td class="n">\(HTML.number(service.failedAttempts))</td><td class="n">\(HTML.number(service.apiCalls))</td>\
                <td>\(outcomes.isEmpty ? "–" : outcomes)</td><td class="n">\(HTML.bytes(service.originalBytes))</td>\
                <td class="n">\(HTML.bytes(service.sentBytes))</td><td class="n">\(HTML.number(service.passedThrough))</td></tr>
                """
        }.joined()
        let errors = report.topErrors.map { error -> HTML in
            "<tr><td>\(error.service)</td><td class=\"bad\">\(error.kind)</td><td class=\"n\">\(jobs(error.jobs, error.service, state: "dead", kind: error.kind))</td><td>\(error.example)</td></tr>"
        }.joined()
        let pace = report.jobsPerMinute.map { String(format: "%.1f jobs/min while finishing", $0) } ?? "not finishing yet"
        let body: HTML = """
            <p>Created \(report.createdAt). \(HTML.number(report.totalJobs)) jobs; \(pace); \(HTML.bytes(max(0, report.bytesSaved))) saved by preparation.
            <a href="/api/report\(HTML.query([("batch", report.batch)]))">JSON</a></p>
            \(report.nearDuplicates == 0 ? "" : "<p>Near-duplicates put last: \(HTML.number(report.nearDuplicates)); not analysed: \(HTML.number(report.nearDuplicatesNotAnalysed)), \(HTML.number(report.callsSaved)) call(s) saved.</p>" as HTML)
            <table><tr><th>service</th><th>jobs</th><th>succeeded</th><th>dead</th><th>cancelled</th><th>pending</th><th>failed attempts</th>\
            <th>API calls</th><th>outcomes</th><th>read</th><th>sent</th><th>sent as is</th></tr>\(rows)</table>
            <h2>Top errors (dead jobs)</h2>
            \(errors.isEmpty ? "<p class=\"ok\">None.</p>" as HTML : "<table><tr><th>service</th><th>error kind</th><th>jobs</th><th>latest message</th></tr>\(errors)</table>")
            """
        return Page(title: "Batch " + report.batch, active: "/batches", body: body)
    }
}
