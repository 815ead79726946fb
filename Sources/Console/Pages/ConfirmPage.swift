import Foundation
import JobQueue

/// Asked before an action over many jobs (a batch's dead jobs, an error kind, the rest of a
/// batch): what it will touch, how many, and one button that does it.
enum ConfirmPage {
    /// The filter's fields a confirmation shows and carries on, with their names for people.
    static let fields = [
        ("batch", "batch"), ("kind", "error kind"), ("service", "service"), ("state", "state"),
        ("file", "file name starting"), ("from", "enqueued from"), ("to", "enqueued to")
    ]

    static func render(_ action: JobControl.BulkAction, form: Form, states: [String: Int], csrf: String, back: String) -> Page {
        let verb = action.rawValue, touched = action.touchedStates
        let count = touched.reduce(0) { $0 + (states[$1] ?? 0) }
        let scope = fields.compactMap { field, label in
            form[field].map { "\(label) <b>\($0)</b>" as HTML }
        }.joined(separator: ", ")
        let what =
            switch action {
            case .retry: "Put \(HTML.number(count)) dead job(s) back in the queue, with a fresh set of attempts"
            case .cancel: "Cancel \(HTML.number(count)) job(s) that have not finished (a worker running one drops its work)"
            case .delete: "Delete \(HTML.number(count)) dead or cancelled job(s) for good (the operator log keeps who did it)"
            }
        let chunks = count > 1000 ? " It is done a thousand jobs at a time, so workers go on claiming meanwhile." : ""
        let kept = ([("csrf", csrf), ("confirmed", "yes")] + (fields.map(\.0) + ["back"]).compactMap { name in form[name].map { (name, $0) } })
            .map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\($0.1)\">" as HTML }.joined()
        let others = states.filter { !touched.contains($0.key) && $0.value > 0 }.sorted { $0.key < $1.key }
            .map { "\(HTML.number($0.value)) \($0.key)" }.joined(separator: ", ")
        let body: HTML =
            count == 0
            ? "<p>Nothing to \(verb) in \(scope).</p><p><a href=\"\(back)\">Back</a></p>"
            : """
            <p>\(what), in \(scope).\(chunks)</p>
            \(others.isEmpty ? "" : "<p class=\"muted\">Left as they are: \(others).</p>" as HTML)
            <form method="post" action="/actions/\(verb)">\(kept)
            <button type="submit" class="primary">\(verb.capitalized) \(HTML.number(count)) job(s)</button> <a href="\(back)">Back</a></form>
            """
        return Page(title: "\(verb.capitalized) these jobs?", active: back, body: body, live: false)
    }
}
