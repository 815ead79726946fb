import Foundation
import QueueReads

/// Jobs, newest first, filtered by the query string (`state`, `batch`, `kind`, `backend`):
/// what `discern jobs` prints.
enum JobsPage {
    static func render(_ list: JobList, filter: JobFilter, _ context: PageContext) -> Page {
        let shown = [("state", filter.state), ("batch", filter.batch), ("kind", filter.errorKind), ("backend", filter.backend)]
        let heading = shown.compactMap { name, value in value.map { "\(name) \(HTML.text($0))" } }.joined(separator: ", ")
        let rows = list.items.map { job in
            """
            <tr><td><a href="/jobs/\(job.id)">\(job.id)</a></td><td>\(HTML.text(job.state))</td><td>\(HTML.text(job.backend))</td>\
            <td>\(HTML.text(job.batch ?? "–"))</td><td>\(job.attempts)/\(job.maxAttempts)</td>\
            <td>\(HTML.text(URL(fileURLWithPath: job.imagePath).lastPathComponent))</td>\
            <td><span class="bad">\(HTML.text(job.errorKind ?? ""))</span></td><td>\(HTML.text(job.updatedAt))</td></tr>
            """
        }.joined()
        var next = ""
        if let before = list.nextBefore(filter) {
            next = "<p><a href=\"/jobs\(HTML.text(HTML.query(shown + [("before", String(before))])))\">Older jobs →</a></p>"
        }
        let body = (heading.isEmpty ? "" : "<p class=\"muted\">Only \(heading). <a href=\"/jobs\">all jobs</a></p>")
            + (list.items.isEmpty ? "<p class=\"muted\">No job matches.</p>"
               : "<table><tr><th>job</th><th>state</th><th>backend</th><th>batch</th><th>tries</th><th>file</th><th>error kind</th><th>updated</th></tr>\(rows)</table>")
            + next
        return Page(title: "Jobs", active: "/jobs", body: body)
    }
}
