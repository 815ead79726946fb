import Foundation
import QueueReads

/// Jobs, newest first, filtered by the form (`state`, `batch`, `service`, `kind`, `file`, `from`,
/// `to`): what `discern jobs` prints. Ticked jobs are retried, cancelled or deleted at once; every
/// job the filter matches through a page that says how many first.
enum JobsPage {
    static let states = ["available", "running", "succeeded", "dead", "cancelled"]

    /// The filter as the page's query and the actions' fields carry it; the state first.
    static func fields(_ filter: JobFilter) -> [(String, String?)] {
        [
            ("state", filter.state), ("batch", filter.batch), ("kind", filter.errorKind), ("service", filter.service),
            ("file", filter.file), ("from", filter.fromDay), ("to", filter.toDay)
        ]
    }

    static func render(_ list: JobList, filter: JobFilter, notice: String? = nil, _ context: PageContext) -> Page {
        let shown = fields(filter)
        let rows = list.items.map { job -> HTML in
            let tick: HTML =
                context.readOnly
                ? "" : "<td><input type=\"checkbox\" name=\"job\" value=\"\(job.id)\" form=\"selected\" aria-label=\"Job \(job.id)\"></td>"
            return """
                <tr>\(tick)<td><a href="/jobs/\(job.id)">\(job.id)</a></td><td>\(job.state)</td><td>\(job.service)</td>\
                <td>\(job.batch ?? "–")</td><td>\(job.attempts)/\(job.maxAttempts)</td>\
                <td>\(URL(fileURLWithPath: job.imagePath).lastPathComponent)</td>\
                <td><span class="bad">\(job.errorKind ?? "")</span></td><td>\(HTML.time(job.updatedAt))</td></tr>
                """
        }.joined()
        var next: HTML = ""
        if let before = list.nextBefore(filter) {
            next = "<p><a href=\"/jobs\(HTML.query(shown + [("before", String(before))]))\">Older jobs →</a></p>"
        }
        let table: HTML =
            list.items.isEmpty
            ? "<p class=\"muted\">No job matches.</p>"
            : """
            \(selectedActions(context))<table><tr>\(context.readOnly ? "" : "<th><span class=\"sr\">select</span></th>" as HTML)<th>job</th><th>state</th><th>service</th><th>batch</th><th>tries</th><th>file</th><th>error kind</th><th>updated</th></tr>\(rows)</table>
            """
        return Page(
            title: "Jobs", active: "/jobs",
            body: (notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTML } ?? "")
                + form(filter, context) + matchingActions(filter, context) + table + next)
    }

    private static func form(_ filter: JobFilter, _ context: PageContext) -> HTML {
        func option(_ value: String, _ chosen: String?) -> HTML {
            "<option value=\"\(value)\"\(value == chosen ? " selected" as HTML : "")>\(value)</option>"
        }
        return """
            <form class="filters" method="get" action="/jobs">
            <label>state<select name="state"><option value="">any</option>\(states.map { option($0, filter.state) }.joined())</select></label>
            <label>batch<input type="text" name="batch" value="\(filter.batch)" maxlength="200"></label>
            <label>service<select name="service"><option value="">any</option>\(context.services.map { option($0, filter.service) }.joined())</select></label>
            <label>error kind<input type="text" name="kind" value="\(filter.errorKind)" maxlength="200"></label>
            <label>file name starts<input type="text" name="file" value="\(filter.file)" maxlength="200"></label>
            <label>enqueued from<input type="date" name="from" value="\(filter.fromDay)"></label>
            <label>to<input type="date" name="to" value="\(filter.toDay)"></label>
            <button type="submit" class="primary">Show</button> <a href="/jobs">clear</a></form>
            """
    }

    /// The ticked rows: one form the checkboxes belong to (`form="selected"`), two buttons.
    private static func selectedActions(_ context: PageContext) -> HTML {
        guard !context.readOnly else { return "" }
        return """
            <form id="selected" class="inline" method="post" action="/actions/retry"><input type="hidden" name="csrf" value="\(context.csrf)">\
            <input type="hidden" name="back" value="/jobs">\
            <button type="submit">Retry selected</button> <button type="submit" formaction="/actions/cancel">Cancel selected</button> \
            <button type="submit" formaction="/actions/delete">Delete selected</button></form>
            """
    }

    /// Every job the filter matches, not only this page's: shown when the filter names more than
    /// a state (a state alone would be the whole queue).
    private static func matchingActions(_ filter: JobFilter, _ context: PageContext) -> HTML {
        let given = fields(filter).compactMap { name, value in value.map { (name, $0) } }
        guard !context.readOnly, given.contains(where: { $0.0 != "state" }) else { return "" }
        let carried = given + [("back", "/jobs")]
        return "<p>"
            + ["retry", "cancel", "delete"].map { verb in
                context.action("/actions/\(verb)", "\(verb.capitalized) all matching…", fields: carried)
            }.joined(separator: " ") + " <span class=\"muted\">(a page says how many first)</span></p>"
    }
}
