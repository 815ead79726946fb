import Foundation
import Hummingbird
import NIOCore
import QueueReads

/// The pages and their `/api/` twins: the same view of the read model (QueueReads), as HTML or
/// as JSON; the CLI prints the same views.
struct Routes: Sendable {
    let store: QueueReader
    let context: PageContext
    let reviewBelow: ReviewThreshold
    let measured = MeasuredThreshold()

    func register(on router: Router<ConsoleContext>) {
        page(router, "/", "/api/overview") { _, _ in
            try await store.overview()
        } render: { data, request, context in
            OverviewPage.render(data, notice: Self.notice(request), context)
        }
        page(router, "/batches", "/api/batches") { request, _ in
            try await store.batches(named: request.uri.queryParameters.get("name"), before: request.uri.queryParameters.get("before", as: Int.self))
        } render: { data, request, context in
            BatchesPage.render(data, notice: Self.notice(request), context)
        }
        page(router, "/results", "/api/results") { request, _ in
            try await store.results(Self.filter(request))
        } render: { data, request, context in
            ResultsPage.render(data, filter: Self.filter(request), context)
        }
        page(router, "/report", "/api/report") { request, _ in
            guard let name = request.uri.queryParameters.get("batch"), !name.isEmpty else {
                throw HTTPError(.badRequest, message: "name a batch: ?batch=NAME")
            }
            return try await store.report(batch: name)
        } render: { data, _, context in
            ReportPage.render(data, context)
        }
        page(router, "/jobs", "/api/jobs") { request, _ in
            try await store.jobs(Self.jobFilter(request))
        } render: { data, request, context in
            JobsPage.render(data, filter: Self.jobFilter(request), notice: Self.notice(request), context)
        }
        page(router, "/jobs/:id", "/api/jobs/:id") { _, asker in
            try await store.detail(jobID: try asker.parameters.require("id", as: Int.self), rawAnswers: asker.role >= .operator)
        } render: { data, request, context in
            JobPage.render(data, notice: Self.notice(request), context)
        }
        page(router, "/results/:id", "/api/results/:id") { _, asker in
            try await store.detail(resultID: try asker.parameters.require("id", as: Int.self), rawAnswers: asker.role >= .operator)
        } render: { data, _, context in
            JobPage.render(data, context)
        }
        page(router, "/failures", "/api/failures") { _, _ in
            try await store.failures()
        } render: { data, request, context in
            FailuresPage.render(data, notice: Self.notice(request), context)
        }
        page(router, "/plan", "/api/plan") { request, _ in
            let until = request.uri.queryParameters.get("until").flatMap { $0.isEmpty ? nil : String($0.prefix(40)) }
            guard let text = until else { return try await store.plan(until: nil) }
            guard let end = Plan.windowEnd(text) else { throw HTTPError(.badRequest, message: "until must be HH:MM or an ISO 8601 time") }
            return try await store.plan(until: end)
        } render: { data, request, context in
            PlanPage.render(data, until: request.uri.queryParameters.get("until").map { String($0) }, notice: Self.notice(request), context)
        }
        page(router, "/trials", "/api/trials") { _, _ in
            try await store.trials()
        } render: { data, _, context in
            TrialsPage.list(data, context)
        }
        page(router, "/trials/:name", "/api/trials/:name") { _, asker in
            guard let report = try await store.trialReport(try asker.parameters.require("name")) else { throw ReadError.notFound }
            return report
        } render: { data, _, context in
            TrialsPage.report(data, context)
        }
        page(router, "/erasures", "/api/erasures") { _, _ in
            try await store.erasureLog()
        } render: { data, _, context in
            ErasuresPage.render(data, context)
        }
        page(router, "/workers", "/api/workers") { _, _ in
            try await store.workers()
        } render: { data, _, context in
            WorkersPage.render(data, context)
        }
        page(router, "/log", "/api/log") { request, _ in
            try await store.operatorLog(before: request.uri.queryParameters.get("before", as: Int.self))
        } render: { data, _, context in
            LogPage.render(data, context)
        }
        page(router, "/quality", "/api/quality") { request, _ in
            try await store.quality(Self.qualityFilter(request))
        } render: { data, request, context in
            QualityPage.render(data, filter: Self.qualityFilter(request), context)
        }
        page(router, "/review", "/api/review") { request, _ in
            let asked = request.uri.queryParameters.get("below", as: Double.self).flatMap { $0.isFinite ? min(max($0, 0), 1) : nil }
            let threshold: Double =
                switch reviewBelow {
                case .fixed(let value): asked ?? value
                case .measured: if let asked { asked } else { await measured.value(store) }
                }
            return try await store.reviewQueue(threshold: threshold)
        } render: { data, request, context in
            ReviewPage.render(data, notice: Self.notice(request), context)
        }
    }

    /// One loader, two routes: the page renders it, the API returns it as JSON. Both know who
    /// asks (a viewer gets no raw answers and no action buttons).
    private func page<T: Encodable & Sendable>(
        _ router: Router<ConsoleContext>, _ path: RouterPath, _ api: RouterPath,
        load: @escaping @Sendable (Request, ConsoleContext) async throws -> T,
        render: @escaping @Sendable (T, Request, PageContext) -> Page
    ) {
        let pages = context
        @Sendable func html(_ request: Request, _ context: ConsoleContext) async throws -> Response {
            let asker = pages.for(context.user, context.role), readOnly = asker.readOnly
            do {
                let page = render(try await load(request, context), request, asker)
                return ConsoleServer.html(page.render(readOnly: readOnly), status: .ok)
            } catch ReadError.notFound {
                return ConsoleServer.html(
                    Page(title: "Not found", active: "", body: "<p>Nothing here: it may have been pruned.</p>", live: false).render(
                        readOnly: readOnly), status: .notFound)
            }
        }
        router.get(path) { request, context in try await html(request, context) }
        router.head(path) { request, context in try await html(request, context).withoutBody }
        router.get(api) { request, context -> Response in
            do {
                let data = try Self.encoder.encode(try await load(request, context))
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
            } catch ReadError.notFound {
                throw HTTPError(.notFound)
            }
        }
    }

    static var encoder: JSONEncoder { QueueReader.encoder }

    static func qualityFilter(_ request: Request) -> QualityFilter {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        var filter = QualityFilter(batch: text("batch"), service: text("service") ?? text("backend"))
        if let days = query.get("days", as: Double.self), days.isFinite, days > 0 {
            filter.since = Date().addingTimeInterval(-min(days, 3650) * 86400)
        }
        if let field = text("field"), Quality.fields.contains(field) { filter.field = field }
        if let target = query.get("target", as: Double.self), target.isFinite, (0...1).contains(target) { filter.target = target }
        return filter
    }

    static func jobFilter(_ request: Request) -> JobFilter {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        return JobFilter(
            state: text("state"), batch: text("batch"), errorKind: text("kind"), service: text("service") ?? text("backend"),
            file: text("file"), fromDay: JobFilter.day(text("from")), toDay: JobFilter.day(text("to")),
            before: query.get("before", as: Int.self), limit: min(max(query.get("limit", as: Int.self) ?? JobFilter.pageSize, 1), 500))
    }

    static func filter(_ request: Request) -> ResultFilter {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        func date(_ name: String) -> String? { text(name).flatMap { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil ? $0 : nil } }
        var filter = ResultFilter()
        filter.before = query.get("before", as: Int.self)
        filter.batch = text("batch")
        filter.service = text("service") ?? text("backend")
        filter.outcome = text("outcome")
        filter.operatorName = text("operator")
        filter.text = text("text")
        filter.minConfidence = query.get("min", as: Double.self).flatMap { $0.isFinite ? $0 : nil }
        filter.maxConfidence = query.get("max", as: Double.self).flatMap { $0.isFinite ? $0 : nil }
        filter.from = date("from")
        filter.to = date("to")
        filter.limit = min(max(query.get("limit", as: Int.self) ?? ResultFilter.pageSize, 1), 500)
        return filter
    }

    /// What the last action did, from the redirect's query (known words only, never free text).
    static func notice(_ request: Request) -> String? {
        let query = request.uri.queryParameters
        let count = query.get("count", as: Int.self) ?? 0
        switch query.get("done") {
        case "retry": return "Retried \(count) job(s)."
        case "cancel": return "Cancelled \(count) job(s)."
        case "delete": return "Deleted \(count) job(s)."
        case "pause": return "Paused: workers claim none of its jobs from their next claim; jobs in flight finish."
        case "resume": return "Resumed: workers claim its jobs again."
        case "rate-limit": return "Rate limit set: workers take their next slots at the new pace."
        case "spend-cap": return "Spend cap set."
        case "confirm", "confirmed": return "Confirmed; the next one is below."
        case "correct", "corrected": return "Correction saved; the next one is below."
        case "cannot_tell": return "Marked as cannot tell; the next one is below."
        default: return nil
        }
    }
}
