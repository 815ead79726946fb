import ErrorCodes
import Foundation
import QueueReads

/// Page 4: one job (or a result whose job was pruned).
enum JobPage {
    /// Error kinds the registry puts on the file (`FailureKind.Fault.file`): not a usable photo,
    /// so no thumbnail is tried, and a retry will not help until the file is replaced.
    static func fileIsTheProblem(_ kind: String) -> Bool { FailureKind.named(kind)?.fault == .file }

    static func render(_ detail: JobDetail, notice: String? = nil, _ context: PageContext) -> Page {
        var parts: [HTML] = []
        if let notice { parts.append("<p class=\"notice\">\(notice)</p>") }
        let path = detail.result?.imagePath ?? detail.job?.imagePath ?? ""
        let name = HTML.text(URL(fileURLWithPath: path).lastPathComponent)
        let photo: HTML
        if let result = detail.result {
            photo = "<div class=\"photo\"><img src=\"/thumbnails/\(result.id)?size=640\" alt=\"\(name)\"></div>"
        } else if let job = detail.job, !(job.errorKind.map(Self.fileIsTheProblem) ?? false) {
            // No result (waiting, or dead of the service's error): the photo on disk is still worth seeing.
            photo = "<div class=\"photo\"><img src=\"/thumbnails/jobs/\(job.id)?size=640\" alt=\"\(name)\"></div>"
        } else {
            photo = "<p class=\"muted\">No picture: the file itself could not be read as a photo (see the error below).</p>"
        }
        parts.append("<div class=\"grid2\"><div>\(photo)<p class=\"muted\">\(path)</p></div><div>\(facts(detail, context))</div></div>")
        if !detail.entities.isEmpty {
            parts.append(
                "<h2>Every entity the service returned</h2><table><tr><th>#</th><th>type</th><th>operator</th><th>fleet</th><th>plate</th><th>container</th><th>tail</th><th>identifiers</th><th>confidence</th></tr>"
                    + detail.entities.map { e -> HTML in
                        "<tr><td>\(e.position)\(e.isPrimary ? " ★" : "")</td><td>\(e.type)</td><td>\(e.operator_ ?? "–")</td><td>\(e.fleetId ?? "–")</td><td>\(e.licensePlate ?? "–")</td><td>\(e.containerId ?? "–")</td><td>\(e.tailId ?? "–")</td><td>\(e.identifiers.joined(separator: ", "))</td><td class=\"n\">\(HTML.confidence(e.confidence))</td></tr>"
                    }.joined() + "</table>")
        }
        if !detail.actions.isEmpty {
            parts.append("<h2>Who acted on it</h2>" + LogPage.table(detail.actions))
        }
        if let result = detail.result {
            parts.append(
                """
                <h2>What preparation did</h2><table>
                <tr><th></th><th>bytes</th><th>pixels</th><th>format</th></tr>
                <tr><td>original</td><td class="n">\(HTML.bytes(result.originalBytes))</td><td>\(result.originalWidth) × \(result.originalHeight)</td><td>\(result.originalFormat)</td></tr>
                <tr><td>sent</td><td class="n">\(HTML.bytes(result.sentBytes))</td><td>\(result.sentWidth) × \(result.sentHeight)</td><td>\(result.sentFormat)</td></tr>
                </table><p>\(result.passedThrough ? "Sent as it was (within every limit)." : "Re-encoded\(result.jpegQuality.map { " at JPEG quality \($0)" } ?? "") after \(result.encodeCount) encode(s).") \
                Prepared in \(String(format: "%.0f", result.prepareMs)) ms, analysed in \(String(format: "%.0f", result.analyzeMs)) ms.</p>
                """)
            parts.append(
                "<h2>The service's answer</h2>" + Self.provenance(result)
                    + (detail.rawAnswerVisible
                        ? "<pre>\(result.rawResponse?.pretty ?? "–")</pre>"
                        : context.readsRawAnswers
                            ? "<p class=\"muted\">Not shown: this console's database role may not read raw answers (discern_reader).</p>"
                            : "<p class=\"muted\">Not shown: raw answers are for operators; you are signed in as a viewer.</p>"))
        }
        if let job = detail.job {
            parts.append(
                "<h2>Timeline</h2><table><tr><th>when</th><th>what</th></tr>"
                    + timeline(job, detail.result).map { "<tr><td>\($0.0)</td><td>\($0.1)</td></tr>" }.joined() + "</table>")
        }
        let title = detail.job.map { "Job \($0.id)" } ?? detail.result.map { "Result \($0.id)" } ?? "Job"
        return Page(title: title, active: "/results", body: parts.joined(separator: "\n"))
    }

    /// Where the answer came from: the deployment, the model and form it names, the release
    /// that wrote it, the budget it was prepared for. Nothing for a result older than that.
    static func provenance(_ result: JobDetail.Result) -> HTML {
        guard result.serviceHost != nil || result.model != nil || result.discernVersion != nil else { return "" }
        let model: HTML = result.model.map { " by model \($0)" } ?? ""
        let form: HTML = result.modelVersion.map { " (answer format \($0))" } ?? ""
        let budget: HTML = result.byteBudget.map { "; prepared for a budget of \(HTML.bytes($0))" } ?? ""
        return
            "<p class=\"muted\">Answered at \(result.serviceHost ?? "an unrecorded host")\(model)\(form), written by discern \(result.discernVersion ?? "?")\(budget).</p>"
    }

    private static func facts(_ detail: JobDetail, _ context: PageContext) -> HTML {
        var rows: [(String, String)] = []
        if let job = detail.job {
            rows += [
                ("state", job.state), ("service", "\(job.service) \(job.action)"), ("batch", job.batch ?? "–"),
                ("attempts", "\(job.attempts) of \(job.maxAttempts)")
            ]
            if let kind = job.errorKind { rows.append(("last error", "\(kind): \(job.lastError ?? "")")) }
            if let trace = job.traceId { rows.append(("trace", trace)) }
        } else {
            rows.append(("job", "pruned; the result is kept"))
        }
        if let r = detail.result {
            rows += [
                ("outcome", r.outcome ?? "–"), ("category", r.category ?? "–"), ("operator", r.operator_ ?? "–"),
                ("fleet ID", r.fleetId ?? "–"), ("licence plate", r.licensePlate ?? "–"), ("confidence", HTML.confidence(r.confidence))
            ]
            if let subject = r.subjectId { rows.append(("subject", subject)) }
            if let review = r.review {
                rows.append(
                    (
                        "review",
                        review.confirmed
                            ? "confirmed by \(review.correctedBy), \(review.correctedAt)"
                            : "corrected by \(review.correctedBy), \(review.correctedAt): operator \(review.operator_ ?? "–"), fleet \(review.fleetId ?? "–"), plate \(review.licensePlate ?? "–")"
                    ))
            }
        }
        var actions: HTML = ""
        if let job = detail.job {
            if job.state == "dead" || job.state == "cancelled" {
                actions += context.action("/actions/retry", "Retry", fields: [("job", String(job.id))], primary: true)
                actions += context.action("/actions/delete", "Delete", fields: [("job", String(job.id))])
            }
            if job.state == "available" || job.state == "running" {
                actions += context.action("/actions/cancel", "Cancel", fields: [("job", String(job.id))])
            }
        }
        return "<table>" + rows.map { "<tr><th>\($0.0)</th><td>\($0.1)</td></tr>" }.joined() + "</table><p>\(actions)</p>"
    }

    private static func timeline(_ job: JobDetail.Job, _ result: JobDetail.Result?) -> [(String, String)] {
        var events = [(job.createdAt, "enqueued"), (job.runAt, "due to run")]
        for attempt in job.errorHistory {
            events.append(
                (attempt.at ?? "", "attempt \(attempt.attempt.map(String.init) ?? "?") failed: \(attempt.kind ?? "–"): \(attempt.error ?? "")"))
        }
        if let result { events.append((result.createdAt, "result written")) }
        if let finished = job.finishedAt { events.append((finished, "finished: \(job.state)")) }
        return events.sorted { $0.0 < $1.0 }
    }
}
