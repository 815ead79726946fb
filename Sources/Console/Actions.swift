import Foundation
import QueueReads
import Hummingbird
import JobQueue
import Logging
import Postgres

/// The console's POSTs: retry, cancel, delete, review, pause, resume (an operator's), and a
/// rate limit's pace or a spend cap (an admin's). AccessGuard refuses a role what it may not do,
/// by `role(_:)`, before any handler runs. Each checks the form's CSRF token, acts in one
/// transaction through the same functions the CLI uses, and redirects (303) to a page that says
/// what happened.
struct Actions {
    /// The actions' own connection: the read model's are for reading.
    let writes: Database
    let secrets: Secrets
    /// The services there are (ServiceClients' registry): a cap for a misspelt one would cap nothing.
    let services: [String]

    /// One action's statements, in one transaction on the actions' connection, under the same
    /// timeout as the pages': no action holds the database longer.
    private func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await writes.transaction(statementTimeout: QueueReader.statementTimeout, body)
    }

    /// The role an action's path needs; nil for a path that is no action.
    static func role(_ path: String) -> ConsoleRole? {
        switch path {
        case "/actions/retry", "/actions/cancel", "/actions/delete", "/actions/review", "/actions/pause", "/actions/resume": .operator
        case "/actions/rate-limit", "/actions/spend-cap": .admin
        default: path.hasPrefix("/actions/") ? .admin : nil
        }
    }

    func register(on router: Router<ConsoleContext>) {
        router.post("/actions/retry") { request, context in try await act(request, context, .retry) }
        router.post("/actions/cancel") { request, context in try await act(request, context, .cancel) }
        router.post("/actions/delete") { request, context in try await act(request, context, .delete) }
        router.post("/actions/review") { request, context in try await review(request, context) }
        router.post("/actions/pause") { request, context in try await pause(request, context, resume: false) }
        router.post("/actions/resume") { request, context in try await pause(request, context, resume: true) }
        router.post("/actions/rate-limit") { request, context in try await rateLimit(request, context) }
        router.post("/actions/spend-cap") { request, context in try await spendCap(request, context) }
    }

    /// Sets a shared rate limit's pace (the Plan page, an admin's).
    private func rateLimit(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let form = try await Form.read(request, context, secrets: secrets)
        guard let key = form["key"], key.count <= 100 else { throw HTTPError(.badRequest, message: "name a rate limit: key=NAME") }
        guard let perMinute = form["per_minute"].flatMap(Double.init), perMinute.isFinite, perMinute > 0, perMinute <= 1_000_000 else {
            throw HTTPError(.badRequest, message: "per_minute must be a number of calls a minute above 0")
        }
        let user = context.user
        guard try await write({ try ServiceLimits.setRateLimit($0, key: key, perMinute: perMinute, by: user) }) else {
            throw HTTPError(.notFound, message: "there is no rate limit \(key)")
        }
        context.logger.notice("console action", metadata: ["action": "rate-limit", "key": "\(key)", "per_minute": "\(perMinute)", "user": "\(user)"])
        return Response.redirect(to: "/plan" + HTML.query([("done", "rate-limit")]), type: .normal)
    }

    /// Sets or removes a service's spend cap in calls a day or a month (the Plan page, an admin's).
    private func spendCap(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let form = try await Form.read(request, context, secrets: secrets)
        guard let service = form["service"] ?? form["backend"], service.count <= 100, services.isEmpty || services.contains(service) else {
            throw HTTPError(.badRequest, message: "name a service: service=\(services.joined(separator: "|"))")
        }
        guard let period = form["period"], ["day", "month"].contains(period) else {
            throw HTTPError(.badRequest, message: "period must be day or month")
        }
        var calls: Int?
        if let text = form["cap_calls"] {
            guard let value = Int(text), value >= 0 else {
                throw HTTPError(.badRequest, message: "cap_calls must be a whole number of calls, or empty for no cap")
            }
            calls = value
        }
        let user = context.user, cap = calls
        try await write { try ServiceLimits.setSpendCap($0, service: service, calls: cap, period: period, by: user) }
        context.logger.notice(
            "console action",
            metadata: [
                "action": "spend-cap", "service": "\(service)", "cap_calls": "\(cap.map(String.init) ?? "none")",
                "period": "\(period)", "user": "\(user)"
            ])
        return Response.redirect(to: "/plan" + HTML.query([("done", "spend-cap")]), type: .normal)
    }

    /// Pauses or resumes one service, as the user the console knows.
    private func pause(_ request: Request, _ context: ConsoleContext, resume: Bool) async throws -> Response {
        let form = try await Form.read(request, context, secrets: secrets)
        guard let service = form["service"] ?? form["backend"], service.count <= 100 else {
            throw HTTPError(.badRequest, message: "name a service: service=NAME")
        }
        let user = context.user
        let changed = try await write {
            resume ? try Pausing.resume($0, service: service, by: user) : try Pausing.pause($0, service: service, by: user)
        }
        context.logger.notice(
            "console action",
            metadata: [
                "action": "\(resume ? "resume" : "pause")", "service": "\(service)",
                "changed": "\(changed)", "user": "\(user)"
            ])
        return Response.redirect(to: "/" + HTML.query([("done", resume ? "resume" : "pause")]), type: .normal)
    }

    /// Retry, cancel or delete: jobs named by id (one, or the jobs page's ticked boxes) at once; a whole
    /// batch, error kind, service or filter only after a page that says how many and what, then
    /// a thousand jobs a transaction.
    private func act(_ request: Request, _ context: ConsoleContext, _ action: JobControl.BulkAction) async throws -> Response {
        let form = try await Form.read(request, context, secrets: secrets)
        let verb = action.rawValue
        var selection = JobControl.Selection(
            batch: form["batch"], errorKind: form["kind"], service: form["service"] ?? form["backend"], state: form["state"],
            file: form["file"], fromDay: form["from"], toDay: form["to"])
        let ids = form.values("job")
        guard ids.count <= 1000 else { throw HTTPError(.badRequest, message: "at most 1,000 jobs by id; choose more with a filter") }
        for job in ids {
            guard let id = Int64(job), id > 0 else { throw HTTPError(.badRequest, message: "job must be a job id") }
            selection.ids.append(id)
        }
        guard !selection.isEmpty else { throw HTTPError(.badRequest, message: "name a job, a batch, an error kind, a service, a file name or a day") }
        let chosen = selection, user = context.user
        // A selection by filters is confirmed first, on a page that says how many jobs it takes.
        if selection.ids.isEmpty && form["confirmed"] != "yes" {
            let states = try await write { try JobControl.states($0, chosen) }
            let page = ConfirmPage.render(
                action, form: form, states: states, csrf: secrets.csrf(user: context.user, role: context.role), back: Self.back(form))
            return ConsoleServer.html(page.render(readOnly: false), status: .ok)
        }
        let count = try await JobControl.perform(action, chosen, by: user) { body in try await write(body) }
        context.logger.notice("console action", metadata: ["action": "\(verb)", "jobs": "\(count)", "user": "\(user)"])
        // One job acted on from its own page goes back there, unless it is gone.
        let back = form["back"] != "/jobs" && ids.count == 1 && action != .delete ? "/jobs/\(ids[0])" : Self.back(form)
        return Response.redirect(to: back + HTML.query([("done", verb), ("count", String(count))]), type: .normal)
    }

    /// The page an action over many jobs came from, and returns to.
    static func back(_ form: Form) -> String {
        form["back"] == "/jobs" || form.values("job").count == 1 ? "/jobs" : form["batch"] != nil && form["kind"] == nil ? "/batches" : "/failures"
    }

    private func review(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let form = try await Form.read(request, context, secrets: secrets)
        guard let result = form["result"].flatMap(Int.init), result > 0 else { throw HTTPError(.badRequest, message: "result must be a result id") }
        // The form shows what the service read; what is submitted is what the person says is
        // there, an emptied field meaning "there is none" (stored as an empty text).
        func value(_ name: String, limit: Int = 200) -> String? {
            form.fields[name].map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(limit)) }
        }
        // No default: a form sent without a verdict (a script, an old page) must not count as "right".
        let verdict: Correction.Verdict
        switch form["verdict"] {
        case "correct": verdict = .corrected
        case "confirm": verdict = .confirmed
        case "cannot_tell": verdict = .cannotTell
        default: throw HTTPError(.badRequest, message: "verdict must be confirm, correct or cannot_tell")
        }
        let correction = Correction(
            resultID: result, verdict: verdict, operatorName: value("operator"), fleetID: value("fleet_id"),
            licensePlate: value("license_plate", limit: 50), category: value("category"), by: context.user)
        guard correction.isComplete else {
            throw HTTPError(.badRequest, message: "a correction needs an operator, a fleet ID, a licence plate or a category")
        }
        guard try await write({ try Reviews.record($0, correction) }) else {
            throw HTTPError(.notFound, message: "there is no result \(result)")
        }
        let back = form["back"] == "/quality" ? "/quality" : "/review"
        return Response.redirect(to: back + HTML.query([("done", verdict.rawValue), ("count", "1")]), type: .normal)
    }
}

/// An urlencoded form body, at most 64 KiB, with its CSRF token checked.
struct Form {
    let fields: [String: String]
    /// Every value of a name, in order (ticked checkboxes send one each).
    var repeated: [String: [String]] = [:]
    subscript(name: String) -> String? { fields[name].flatMap { $0.isEmpty ? nil : $0 } }
    func values(_ name: String) -> [String] { (repeated[name] ?? []).filter { !$0.isEmpty } }

    static func read(_ request: Request, _ context: ConsoleContext, secrets: Secrets) async throws -> Form {
        if let origin = request.headers[.origin], let host = request.head.authority,
            URLComponents(string: origin).map({ "\($0.host ?? "")\($0.port.map { ":\($0)" } ?? "")" }) != host
        {
            throw HTTPError(.forbidden, message: "this form was sent from another site")
        }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let form = parse(String(buffer: body))
        guard secrets.isCSRF(form.fields["csrf"], user: context.user, role: context.role) else {
            throw HTTPError(.forbidden, message: "this form is stale or was not made by the console: reload the page and try again")
        }
        return form
    }

    /// `a=1&b=x+y`: the first value of each name counts; a part that does not decode is dropped.
    static func parse(_ text: String) -> Form {
        var fields: [String: String] = [:], repeated: [String: [String]] = [:]
        for part in text.split(separator: "&") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ raw: Substring) -> String? { raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(pair[0]), let value = pair.count > 1 ? decode(pair[1]) : "" else { continue }
            repeated[name, default: []].append(value)
            if fields[name] == nil { fields[name] = value }
        }
        return Form(fields: fields, repeated: repeated)
    }
}
