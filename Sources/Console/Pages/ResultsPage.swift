import Foundation
import QueueReads

/// Page 3: a grid of thumbnails with what the service read under each.
enum ResultsPage {
    static func render(_ page: ResultPage, filter: ResultFilter, _ context: PageContext) -> Page {
        func field(_ name: String, _ label: String, _ value: String?, type: String = "text", extra: HTML = "") -> HTML {
            "<label>\(label)<input type=\"\(type)\" name=\"\(name)\" value=\"\(value)\"\(extra)></label>"
        }
        let services = ([""] + context.services).map {
            "<option value=\"\($0)\"\($0 == (filter.service ?? "") ? " selected" as HTML : "")>\($0.isEmpty ? "any" : $0)</option>" as HTML
        }.joined()
        let form: HTML = """
            <form class="filters" method="get" action="/results">
            \(field("batch", "batch", filter.batch))
            <label>service<select name="service">\(services)</select></label>
            \(field("outcome", "outcome", filter.outcome))
            \(field("operator", "operator", filter.operatorName))
            \(field("text", "plate or fleet ID", filter.text))
            \(field("min", "confidence from", filter.minConfidence.map { String($0) }, type: "number", extra: " step=\"0.01\" min=\"0\" max=\"1\""))
            \(field("max", "to", filter.maxConfidence.map { String($0) }, type: "number", extra: " step=\"0.01\" min=\"0\" max=\"1\""))
            \(field("from", "from", filter.from, type: "date"))
            \(field("to", "to", filter.to, type: "date"))
            <button type="submit" class="primary">Filter</button> <a href="/results">clear</a>
            </form>
            """
        let cards: HTML =
            page.items.isEmpty ? "<p class=\"muted\">No result matches.</p>" : "<div class=\"cards\">" + page.items.map(card).joined() + "</div>"
        var next: HTML = ""
        if let before = page.nextBefore(filter) {
            var more = filter
            more.before = before
            next = "<p><a href=\"/results\(query(more))\">Older results →</a></p>"
        }
        return Page(title: "Results", active: "/results", body: form + cards + next)
    }

    static func card(_ card: ResultPage.Card) -> HTML {
        let link = card.jobId.map { "/jobs/\($0)" } ?? "/results/\(card.id)"
        return """
            <div class="card"><a href="\(link)"><img src="/thumbnails/\(card.id)" alt="\(URL(fileURLWithPath: card.imagePath).lastPathComponent)" loading="lazy"></a>
            <div class="facts"><b>\(card.operator_ ?? card.category ?? card.outcome ?? "–")</b> \(HTML.confidence(card.confidence))<br>
            fleet \(card.fleetId ?? "–") · plate \(card.licensePlate ?? "–")<br>
            <span class="muted">\(card.category ?? card.service) · \(card.batch ?? "no batch")</span></div></div>
            """
    }

    /// The query string that asks for `filter` again.
    static func query(_ filter: ResultFilter) -> String {
        HTML.query([
            ("batch", filter.batch), ("service", filter.service), ("outcome", filter.outcome), ("operator", filter.operatorName),
            ("text", filter.text), ("min", filter.minConfidence.map { String($0) }), ("max", filter.maxConfidence.map { String($0) }),
            ("from", filter.from), ("to", filter.to), ("before", filter.before.map(String.init))
        ])
    }
}
