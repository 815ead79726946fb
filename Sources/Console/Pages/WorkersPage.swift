import Foundation
import QueueReads

/// Every worker of the last day: live or not, what it serves, what it holds now and since when,
/// how many it finished and at what pace.
enum WorkersPage {
    static func render(_ list: WorkerList, _ context: PageContext) -> Page {
        guard !list.workers.isEmpty else {
            return Page(
                title: "Workers", active: "/workers",
                body: "<p class=\"muted\">No worker has run in the last 24 hours: start <code>discern work</code>.</p>")
        }
        let rows = list.workers.map { w -> HTML in
            let state: HTML =
                w.live ? "<span class=\"ok\">live</span>" : w.stoppedAt.map { "stopped \($0)" as HTML } ?? "<span class=\"bad\">silent</span>"
            return "<tr><td>\(w.id)</td><td>\(state)</td><td>\(w.host) (pid \(w.pid))</td><td>\(w.services.joined(separator: ", "))</td>"
                + "<td class=\"n\">\(HTML.number(w.jobsHeld))</td><td>\(HTML.time(w.holdingSince))</td>"
                + "<td class=\"n\">\(HTML.number(w.jobsFinished))</td><td class=\"n\">\(pace(w))</td><td>\(HTML.time(w.startedAt))</td>"
                + "<td>\(HTML.time(w.lastHeartbeatAt))</td><td>\(w.version)</td></tr>"
        }.joined()
        return Page(
            title: "Workers", active: "/workers",
            body: """
                <p class="muted">Every worker of the last 24 hours. A silent one missed three heartbeats: its jobs go back to the queue (the rescuer).</p>
                <table><tr><th>worker</th><th>state</th><th>host</th><th>serves</th><th>jobs held</th><th>holding since</th><th>finished</th><th>a minute</th><th>started</th><th>last heartbeat</th><th>version</th></tr>\(rows)</table>
                """)
    }

    /// Jobs a minute over the last minute, while it works: a stopped worker has no pace.
    private static func pace(_ worker: WorkerList.Worker) -> String {
        guard worker.live, let perMinute = worker.jobsPerMinute else { return "–" }
        return String(format: perMinute < 10 ? "%.1f" : "%.0f", perMinute)
    }
}
