import Foundation
import QueueReads

/// The review page: the audit sample (what accuracy is measured from) apart from the least
/// confident readings (what is most likely wrong). Each card shows what the service read in a
/// form: confirm it, change what is there (an emptied field: there is none), or say the photo
/// cannot tell.
enum ReviewPage {
    static func render(_ queue: ReviewQueue, notice: String?, _ context: PageContext) -> Page {
        var parts: [HTML] = []
        if let notice { parts.append("<p class=\"notice\">\(notice)</p>") }
        if !context.readOnly && !(queue.audit.isEmpty && queue.items.isEmpty) {
            parts.append(
                "<p class=\"muted\">Keys: <kbd>j</kbd> / <kbd>k</kbd> next / previous card, <kbd>c</kbd> confirm, <kbd>e</kbd> correct (<kbd>Enter</kbd> saves), <kbd>x</kbd> cannot tell, <kbd>Esc</kbd> leaves a field.</p>"
            )
        }
        parts.append("<h2 id=\"audit\">Audit sample: \(HTML.number(queue.auditPending)) waiting from the last 7 days</h2>")
        parts.append(
            "<p class=\"muted\">A uniform random share of every service's results, picked when each was written: reviewing these measures how often the service is right (<a href=\"/quality\">Quality</a>). Newest first; review them as they come, whatever their confidence.</p>"
        )
        parts.append(
            queue.audit.isEmpty
                ? "<p class=\"ok\">No audited result waits.</p>" as HTML
                : "<div class=\"cards\" data-queue=\"audit\">" + queue.audit.map { card($0, context) }.joined() + "</div>")
        parts.append("<h2 id=\"low\">Least confident</h2>")
        parts.append(
            "<p class=\"muted\">Results read with less than \(HTML.confidence(queue.threshold)) confidence and not reviewed yet, least confident first. \(HTML.number(queue.reviewedToday)) reviewed today. Reviewed values reach dashboards through <code>discern.reviewed_results</code>.</p>"
        )
        parts.append(
            queue.items.isEmpty
                ? "<p class=\"ok\">Nothing to review.</p>" as HTML
                : "<div class=\"cards\" data-queue=\"low\">" + queue.items.map { card($0, context) }.joined() + "</div>")
        return Page(title: "Review", active: "/review", body: parts.joined(separator: "\n"), live: false)
    }

    // "Save correction" comes first: Enter in a field submits a form's first button, and what was
    // typed there must be saved, never dropped as a confirmation of what the service read.
    private static func card(_ item: ResultPage.Card, _ context: PageContext) -> HTML {
        let link = item.jobId.map { "/jobs/\($0)" } ?? "/results/\(item.id)"
        let facts: HTML = "<b>\(item.category ?? item.service)</b> \(HTML.confidence(item.confidence))"
        guard !context.readOnly else {
            return
                "<div class=\"card\"><a href=\"\(link)\" aria-label=\"\("Result \(item.id): " + (item.category ?? item.service))\"><img src=\"/thumbnails/\(item.id)\" alt=\"\" loading=\"lazy\"></a><div class=\"facts\">\(facts)<br>operator \(item.operator_ ?? "–") · fleet \(item.fleetId ?? "–") · plate \(item.licensePlate ?? "–")</div></div>"
        }
        func input(_ name: String, _ label: String, _ value: String?) -> HTML {
            "<label class=\"muted\">\(label)<br><input type=\"text\" name=\"\(name)\" value=\"\(value)\" maxlength=\"200\"></label><br>"
        }
        return """
            <div class="card"><a href="\(link)" aria-label="\("Result \(item.id): " + (item.category ?? item.service))"><img src="/thumbnails/\(item.id)" alt="" loading="lazy"></a><div class="facts">\(facts)
            <form method="post" action="/actions/review" data-result="\(item.id)">
            <input type="hidden" name="csrf" value="\(context.csrf)"><input type="hidden" name="result" value="\(item.id)">
            \(input("category", "category", item.category))\(input("operator", "operator", item.operator_))\(input("fleet_id", "fleet ID", item.fleetId))\(input("license_plate", "licence plate", item.licensePlate))
            <button type="submit" name="verdict" value="correct" class="primary">Save correction</button> <button type="submit" name="verdict" value="confirm">Confirm</button>
            <button type="submit" name="verdict" value="cannot_tell">Cannot tell</button>
            </form></div></div>
            """
    }
}
