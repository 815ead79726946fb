import Foundation
import QueueReads

/// The night's plan (`discern plan`): per service, what is queued, its pace and what binds it,
/// when it finishes, what will not finish before the window's end (`?until=06:00`) and what it
/// costs; the jobs left over by batch and priority.
enum PlanPage {
    static func render(_ plan: Plan, until: String?, notice: String? = nil, _ context: PageContext) -> Page {
        let said = notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTML } ?? ""
        let form: HTML =
            said + """
                <form class="filters" method="get" action="/plan"><label>window ends<input type="text" name="until" value="\(until)" \
                placeholder="06:00" maxlength="40"></label> <button type="submit" class="primary">Plan</button> <a href="/plan">no window</a></form>
                """
        guard !plan.services.isEmpty else {
            return Page(title: "Plan", active: "/plan", body: form + "<p class=\"ok\">Nothing is queued.</p>")
        }
        let windowed = plan.until != nil
        let rows = plan.services.map { service -> HTML in
            let warn = (service.willNotFinish ?? 0) > 0
            return "<tr><td>\(service.service)</td><td class=\"n\">\(HTML.number(service.waiting))</td>" as HTML
                + "<td class=\"n\">\(HTML.number(service.running))</td><td class=\"n\">\(pace(service))</td>"
                + "<td>\(service.constraintText)</td><td>\(finish(service))</td>"
                + (windowed ? "<td class=\"n\(warn ? " bad" as HTML : "")\">\(service.willNotFinish.map(HTML.number) ?? "–")</td>" : "")
                + "<td class=\"n\">\(service.costForecast.map { String(format: "%.2f", $0) } ?? "–")</td>"
                + "<td class=\"n\">\(service.spendThisMonth.map { String(format: "%.2f", $0) } ?? "–") (\(HTML.number(service.callsThisMonth)) calls)</td>"
                + "<td>\(cap(service))</td></tr>"
        }.joined()
        let leftOver = plan.services.filter { !$0.leftOver.isEmpty }.map { service -> HTML in
            "<h2>\(service.service): left over when the window closes</h2><table><tr><th>batch</th><th>priority</th><th>jobs</th><th>oldest enqueued</th></tr>"
                + service.leftOver.map { group -> HTML in
                    let link = "/jobs" + HTML.query([("service", service.service), ("batch", group.batch), ("state", "available")])
                    return "<tr><td>\(group.batch ?? "–")</td><td class=\"n\">\(group.priority)</td>" as HTML
                        + "<td class=\"n\"><a href=\"\(link)\">\(HTML.number(group.jobs))</a></td><td>\(HTML.time(group.oldest))</td></tr>"
                }.joined() + "</table>"
        }.joined()
        let window = plan.until.map { "Window ends \(HTML.time($0)). " as HTML } ?? ""
        return Page(
            title: "Plan", active: "/plan",
            body: """
                \(form)
                <p class="muted">\(window)The pace is measured over the last ten minutes, or before any measure the shared rate limit's (per job, retries included); the finish is a range. Prices and caps: <code>discern.service_budgets</code>.</p>
                <table><tr><th>service</th><th>waiting</th><th>running</th><th>pace /min</th><th>binds</th><th>finishes</th>\
                \(windowed ? "<th>will not finish</th>" as HTML : "")<th>cost forecast</th><th>spent this month</th><th>spend cap</th></tr>\(rows)</table>
                \(leftOver)
                \(limits(plan, context))
                """)
    }

    /// An admin's forms: each service's rate-limit pace and spend cap. Nothing for other roles.
    static func limits(_ plan: Plan, _ context: PageContext) -> HTML {
        guard context.role >= .admin else { return "" }
        let rows = plan.services.map { service -> HTML in
            let pace: HTML =
                service.limitKey.map { key in
                    context.form(
                        "/actions/rate-limit", "Set pace", hidden: [("key", key)],
                        inputs: """
                            <label>\(key) <input type="number" name="per_minute" min="0.01" step="any" required \
                            value="\(service.limitPerMinute.map { String(format: "%g", $0) } ?? "")" aria-label="\(key) calls a minute"></label> a minute
                            """)
                } ?? "–"
            let cap = context.form(
                "/actions/spend-cap", "Set cap", hidden: [("service", service.service)],
                inputs: """
                    <label>calls <input type="number" name="cap_calls" min="0" step="1" value="\(service.capCalls.map { String(format: "%.0f", $0) } ?? "")" \
                    aria-label="\(service.service) spend cap in calls" placeholder="no cap"></label> a <select name="period" aria-label="\(service.service) cap period">\
                    <option\(service.capPeriod == "day" ? " selected" as HTML : "")>day</option><option\(service.capPeriod != "day" ? " selected" as HTML : "")>month</option></select>
                    """)
            return "<tr><td>\(service.service)</td><td>\(pace)</td><td>\(cap)</td></tr>"
        }.joined()
        return
            "<h2>Limits</h2><p class=\"muted\">An admin's: the pace of each service's shared rate limit and its spend cap (empty: none). Workers take the next slot at the new pace; each change is in the Log.</p>"
            + "<table><tr><th>service</th><th>rate limit</th><th>spend cap</th></tr>\(rows)</table>"
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
