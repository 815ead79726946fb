import Foundation
import Hummingbird
import NIOCore

/// The six pages and their `/api/` twins: the same data, as HTML or as JSON.
struct Routes: Sendable {
    let store: ConsoleStore
    let context: PageContext
    let reviewBelow: Double

    func register(on router: Router<ConsoleContext>) {
        page(router, "/", "/api/overview") { _, _ in try await store.overview() } render: { data, _ in OverviewPage.render(data, context) }
        page(router, "/batches", "/api/batches") { request, _ in
            try await store.batches(named: request.uri.queryParameters.get("name"), before: request.uri.queryParameters.get("before", as: Int.self))
        } render: { data, _ in BatchesPage.render(data, context) }
        page(router, "/results", "/api/results") { request, _ in
            try await store.results(Self.filter(request))
        } render: { data, request in ResultsPage.render(data, filter: Self.filter(request), context) }
        page(router, "/jobs/:id", "/api/jobs/:id") { _, parameters in
            try await store.detail(jobID: try parameters.require("id", as: Int.self))
        } render: { data, request in JobPage.render(data, notice: Self.notice(request), context) }
        page(router, "/results/:id", "/api/results/:id") { _, parameters in
            try await store.detail(resultID: try parameters.require("id", as: Int.self))
        } render: { data, _ in JobPage.render(data, context) }
        page(router, "/failures", "/api/failures") { _, _ in try await store.failures() } render: { data, request in
            FailuresPage.render(data, notice: Self.notice(request), context)
        }
        page(router, "/review", "/api/review") { request, _ in
            try await store.reviewQueue(threshold: request.uri.queryParameters.get("below", as: Double.self).map { min(max($0, 0), 1) } ?? reviewBelow)
        } render: { data, request in ReviewPage.render(data, notice: Self.notice(request), context) }
    }

    /// One loader, two routes: the page renders it, the API returns it as JSON.
    private func page<T: Encodable & Sendable>(
        _ router: Router<ConsoleContext>, _ path: RouterPath, _ api: RouterPath,
        load: @escaping @Sendable (Request, Parameters) async throws -> T,
        render: @escaping @Sendable (T, Request) -> Page
    ) {
        let readOnly = context.readOnly
        router.get(path) { request, context -> Response in
            do {
                let page = render(try await load(request, context.parameters), request)
                return ConsoleServer.html(page.render(readOnly: readOnly), status: .ok)
            } catch ConsoleError.notFound {
                return ConsoleServer.html(Page(title: "Not found", active: "", body: "<p>Nothing here: it may have been pruned.</p>").render(readOnly: readOnly), status: .notFound)
            }
        }
        router.get(api) { request, context -> Response in
            do {
                let data = try Self.encoder.encode(try await load(request, context.parameters))
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
            } catch ConsoleError.notFound {
                throw HTTPError(.notFound)
            }
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func filter(_ request: Request) -> ResultFilter {
        let query = request.uri.queryParameters
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        func date(_ name: String) -> String? { text(name).flatMap { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil ? $0 : nil } }
        var filter = ResultFilter()
        filter.before = query.get("before", as: Int.self)
        filter.batch = text("batch")
        filter.backend = text("backend")
        filter.outcome = text("outcome")
        filter.operatorName = text("operator")
        filter.text = text("text")
        filter.minConfidence = query.get("min", as: Double.self).flatMap { $0.isFinite ? $0 : nil }
        filter.maxConfidence = query.get("max", as: Double.self).flatMap { $0.isFinite ? $0 : nil }
        filter.from = date("from")
        filter.to = date("to")
        return filter
    }

    /// What the last action did, from the redirect's query (known words only, never free text).
    static func notice(_ request: Request) -> String? {
        let query = request.uri.queryParameters
        let count = query.get("count", as: Int.self) ?? 0
        switch query.get("done") {
        case "retry": return "Re-queued \(count) job(s)."
        case "cancel": return "Cancelled \(count) job(s)."
        case "confirm": return "Confirmed; the next one is below."
        case "correct": return "Correction saved; the next one is below."
        default: return nil
        }
    }
}
