import Foundation
import QueueReads

/// Page 1. Reloads itself every 10 s while live updates are on (/static/console.js; pausable).
enum OverviewPage {
    static func render(_ data: Overview, notice: String? = nil, _ context: PageContext) -> Page {
        let services = Array(Set(data.states.map(\.service))).sorted()
        let states = ["available", "running", "succeeded", "dead", "cancelled"]
        let count = Dictionary(data.states.map { ("\($0.service)/\($0.state)", $0.jobs) }, uniquingKeysWith: +)
        let paused = Dictionary(data.paused.map { ($0.service, $0) }, uniquingKeysWith: { $1 })
        let down = Dictionary(data.unavailable.map { ($0.service, $0) }, uniquingKeysWith: { $1 })
        let queue: HTML =
            services.isEmpty
            ? "<p class=\"muted\">No jobs yet.</p>"
            : """
            <table><tr><th>service</th>\(states.map { "<th>\($0)\(["succeeded", "cancelled"].contains($0) ? " (24 h)" : "")</th>" as HTML }.joined())<th>claims</th></tr>
            \(services.map { service -> HTML in
                "<tr><td>\(service)</td>" + states.map { state -> HTML in
                    "<td class=\"n\"><a href=\"/jobs\(HTML.query([("service", service), ("state", state)]))\">\(HTML.number(count["\(service)/\(state)"] ?? 0))</a></td>"
                }.joined()
                    + "<td>\(claims(service, paused[service], down[service], context))</td></tr>"
            }.joined())</table>
            """
        let chart = Chart.hourly(data.hours.map { (label: $0.hour, succeeded: $0.succeeded, dead: $0.dead) })
        let workers: HTML =
            data.workers.isEmpty
            ? "<p class=\"muted\">No live worker (none has heartbeated in the last three intervals).</p>"
            : """
            <table><tr><th>worker</th><th>host</th><th>services</th><th>version</th><th>last heartbeat</th></tr>
            \(data.workers.map { "<tr><td>\($0.id)</td><td>\($0.host)</td><td>\($0.services.joined(separator: ", "))</td><td>\($0.version)</td><td>\(HTML.time($0.lastHeartbeatAt))</td></tr>" as HTML }.joined())
            </table>
            """
        let limits: HTML = """
            <table><tr><th>limit</th><th>per minute</th><th>burst</th><th>next slot</th><th>jobs waiting</th></tr>
            \(data.rateLimits.map { "<tr><td>\($0.key)</td><td class=\"n\">\(String(format: "%g", $0.perMinute))</td><td class=\"n\">\(String(format: "%g", $0.burst))</td><td>\($0.nextAt ?? "now")</td><td class=\"n\">\(HTML.number($0.waitingJobs))</td></tr>" as HTML }.joined())
            </table>
            """
        let dead: HTML =
            data.deadByKind.isEmpty
            ? "<p class=\"ok\">No dead jobs.</p>"
            : """
            <table><tr><th>service</th><th>error kind</th><th>jobs</th><th>example</th></tr>
            \(data.deadByKind.map { "<tr><td>\($0.service)</td><td>\($0.errorKind ?? "–")</td><td class=\"n\">\(HTML.number($0.jobs))</td><td>\($0.example)</td></tr>" as HTML }.joined())
            </table><p><a href="/failures">Retry or cancel on the failures page →</a></p>
            """
        return Page(
            title: "Overview", active: "/",
            body: """
                \(notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTML } ?? "")\(alarm(data.unserved))\(unavailableNotice(data.unavailable, context))\(pausedNotice(data.paused))<h2>Jobs by service and state</h2>\(queue)
                <h2>Finished per hour (last 12 hours)</h2>\(chart)
                <h2>Live workers</h2>\(workers)
                <h2>Rate limits (shared by all workers)</h2>\(limits)
                <h2>Dead jobs by error kind</h2>\(dead)
                <p class="muted">As of \(HTML.time(data.generatedAt)); reloads every 10 s while live updates are on.</p>
                """)
    }

    /// A service's claims: running (with a Pause button), unavailable (probed; Resume closes its
    /// breaker by hand) or paused (with Resume).
    private static func claims(_ service: String, _ paused: Overview.Paused?, _ down: Overview.Unavailable?, _ context: PageContext) -> HTML {
        if paused == nil, let down {
            return "<b class=\"bad\">unavailable</b> " + context.action("/actions/resume", "Resume \(service)", fields: [("service", service)])
                + "<br><span class=\"muted\">since \(HTML.time(down.since)), \(HTML.number(down.probesFailed)) probe(s) failed</span>"
        }
        guard let paused else { return "running " + context.action("/actions/pause", "Pause \(service)", fields: [("service", service)]) }
        return "<b class=\"bad\">paused</b> " + context.action("/actions/resume", "Resume \(service)", fields: [("service", service)], primary: true)
            + "<br><span class=\"muted\">by \(paused.pausedBy), \(HTML.time(paused.pausedAt))</span>"
    }

    /// Services the workers found down, first on the page: their jobs wait for the service, not
    /// for anyone to act, and one probe at a time tells when it is back.
    static func unavailableNotice(_ down: [Overview.Unavailable], _ context: PageContext) -> HTML {
        guard !down.isEmpty else { return "" }
        return "<div class=\"alarm\" role=\"alert\">"
            + down.map { d -> HTML in
                let next: HTML =
                    d.probing
                    ? "a probe is under way"
                    : d.nextProbeSeconds < 1
                        ? "the next probe is due"
                        : "the next in \(String(format: "%.0f", d.nextProbeSeconds)) s"
                return """
                    <b>\(d.service) is unavailable</b> since \(HTML.time(d.since)): its calls fail for its own reasons (\(d.errorKind): \(String(d.lastError.prefix(300)))).
                    \(HTML.number(d.probesFailed)) probe(s) failed, \(next); \(HTML.number(d.waiting)) job(s) wait, keeping their attempts.
                    Workers claim them again as soon as a probe is answered.
                    """
            }.joined(separator: "<br>") + "</div>"
    }

    /// Paused services, said at the top: their jobs wait on purpose.
    private static func pausedNotice(_ paused: [Overview.Paused]) -> HTML {
        guard !paused.isEmpty else { return "" }
        return "<p class=\"notice\" role=\"status\">"
            + paused.map { p in
                "<b>\(p.service) is paused</b> by \(p.pausedBy) since \(HTML.time(p.pausedAt))\(p.reason.map { ": \($0)" } ?? ""); no worker claims its jobs until it is resumed."
            }.joined(separator: "<br>") + "</p>"
    }

    /// Why nothing moves, first on the page: jobs wait for a service no live worker serves.
    private static func alarm(_ unserved: [Overview.Unserved]) -> HTML {
        guard !unserved.isEmpty else { return "" }
        let waiting = unserved.map { "\(HTML.number($0.waiting)) for \($0.service)" }.joined(separator: ", ")
        let services = unserved.map { HTML.text($0.service) }.joined(separator: ", ")
        return """
            <div class="alarm" role="alert"><b>Nothing is being analysed:</b> jobs are waiting (\(waiting)) and no live worker serves \(services).
            Start <code>discern work</code> with the service's URL set, or check why the workers stopped (docs/operations.md).</div>
            """
    }
}
