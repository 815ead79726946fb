import Foundation
import QueueReads

/// The night's plan (`discern plan`): per service, what is queued, its pace and what binds it,
/// when it finishes, what will not finish before the window's end (`?until=06:00`) and what it
/// costs; the jobs left over by batch and priority.
enum PlanPage {
    static func render(_ plan: Plan, until: String?, _ context: PageContext) -> Page {
        let form: HTML = """
            <form class="filters" method="get" action="/plan"><label>window ends<input type="text" name="until" value="\(until)" \
            placeholder="06:00" maxlength="40"></label> <button type="submit" class="primary">Plan</button> <a href="/plan">no window</a></form>
            """
        guard !plan.services.isEmpty else {
            return Page(title: "Plan", active: "/plan", body: form + "<p class=\"ok\">Nothing is queued.</p>")
        }
        let windowed = plan.until != nil
        let rows = plan.services.map { service -> HTML in
            let warn = (service.willNotFinish ?? 0) > 0
            return "<tr><td>\(service.backend)</td><td class=\"n\">\(HTML.number(service.waiting))</td>" as HTML
                + "<td class=\"n\">\(HTML.number(service.running))</td><td class=\"n\">\(pace(service))</td>"
                + "<td>\(service.constraintText)</td><td>\(finish(service))</td>"
                + (windowed ? "<td class=\"n\(warn ? " bad" as HTML : "")\">\(service.willNotFinish.map(HTML.number) ?? "–")</td>" : "")
                + "<td class=\"n\">\(service.costForecast.map { String(format: "%.2f", $0) } ?? "–")</td>"
                + "<td class=\"n\">\(service.spendThisMonth.map { String(format: "%.2f", $0) } ?? "–") (\(HTML.number(service.callsThisMonth)) calls)</td>"
                + "<td>\(cap(service))</td></tr>"
        }.joined()
        let leftOver = plan.services.filter { !$0.leftOver.isEmpty }.map { service -> HTML in
            "<h2>\(service.backend): left over when the window closes</h2><table><tr><th>batch</th><th>priority</th><th>jobs</th><th>oldest enqueued</th></tr>"
                + service.leftOver.map { group -> HTML in
                    let link = "/jobs" + HTML.query([("backend", service.backend), ("batch", group.batch), ("state", "available")])
                    return "<tr><td>\(group.batch ?? "–")</td><td class=\"n\">\(group.priority)</td>" as HTML
                        + "<td class=\"n\"><a href=\"\(link)\">\(HTML.number(group.jobs))</a></td><td>\(HTML.time(group.oldest))</td></tr>"
                }.joined() + "</table>"
        }.joined()
        let window = plan.until.map { "Window ends \(HTML.time($0)). " as HTML } ?? ""
        return Page(title: "Plan", active: "/plan", body: """
            \(form)
            <p class="muted">\(window)The pace is measured over the last ten minutes, or before any measure the shared rate limit's (per job, retries included); the finish is a range. Prices and caps: <code>discern.service_budgets</code>.</p>
            <table><tr><th>service</th><th>waiting</th><th>running</th><th>pace /min</th><th>binds</th><th>finishes</th>\
            \(windowed ? "<th>will not finish</th>" as HTML : "")<th>cost forecast</th><th>spent this month</th><th>spend cap</th></tr>\(rows)</table>
            \(leftOver)
            """)
    }

    /// "12,400 of 50,000 calls this month"; "–" without a cap.
    static func cap(_ service: Plan.Service) -> HTML {
        guard let cap = service.capCalls, let used = service.capUsed, let period = service.capPeriod else { return "–" }
        let text = "\(HTML.number(used)) of \(String(format: "%.0f", cap)) calls this \(period)"
        return Double(used) >= cap ? "<span class=\"bad\">\(text): reached</span>" : "\(text)"
    }

    static func pace(_ service: Plan.Service) -> String { service.paceText ?? "–" }

    static func finish(_ service: Plan.Service) -> HTML {
        if let soonest = service.finishNoSoonerThan { return "no sooner than \(HTML.time(soonest)) (the service is unavailable)" }
        return service.finishRange.map { $0.map(HTML.time).joined(separator: " – ") } ?? "never at this pace"
    }
}
