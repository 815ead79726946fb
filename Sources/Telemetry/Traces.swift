import Synchronization
import Tracing

/// OpenTelemetry traces of a job's journey (docs/tracing.md), spoken through
/// swift-distributed-tracing so that any tracer can receive them. Off unless the executable
/// started one (`start`): while off, each helper here costs one atomic load, binds no task-local
/// and makes no span, so the hot path costs what it does without tracing (bench/RESULTS.md,
/// "Tracing off and on").
public enum Traces {
    private static let on = Atomic<Bool>(false)

    public static var isOn: Bool { on.load(ordering: .relaxed) }

    /// Spans go to `tracer` from now on. Called once per process, before any work starts.
    public static func start(_ tracer: some Tracer) {
        InstrumentationSystem.bootstrap(tracer)
        on.store(true, ordering: .sequentiallyConsistent)
    }

    /// Where a span hangs in its trace.
    public enum Parent: Sendable {
        /// The span the calling task runs in (`within`, `span`), if any; else a new trace.
        case current
        /// A span in another process, named by its W3C `traceparent` (a job's, stored with it);
        /// a new trace when there is none or it cannot be read.
        case remote(traceparent: String?)
        /// A new trace that links to the span named (a retry's, linked to its first attempt).
        case newTraceLinked(to: String?)
        /// A span of this process held elsewhere (a job's process span, closed by the completer).
        case span(Traced)
    }

    /// When a span started, on the tracer's clock (a span begun after the fact: a claim is
    /// traced only once it took something, and polls that find nothing are not).
    public typealias Instant = DefaultTracerClock.Instant

    public static var now: Instant { DefaultTracerClock.now }

    /// Starts a span that outlives the calling scope; whoever holds it ends it (`Traced.end`).
    /// While tracing is off this is `Traced.none` and nothing happens.
    public static func begin(
        _ name: String, kind: SpanKind = .internal, parent: Parent = .current, at start: Instant? = nil,
        _ attributes: SpanAttributes = [:]
    ) -> Traced {
        guard isOn else { return .none }
        let tracer = InstrumentationSystem.legacyTracer
        let parentContext: ServiceContext
        var linked: ServiceContext?
        switch parent {
        case .current: parentContext = ServiceContext.current ?? .topLevel
        case .remote(let traceparent): parentContext = context(traceparent) ?? .topLevel
        case .span(let traced): parentContext = traced.span?.context ?? .topLevel
        case .newTraceLinked(let traceparent):
            parentContext = .topLevel
            linked = context(traceparent)
        }
        let span = tracer.startAnySpan(name, at: start ?? now, context: parentContext, ofKind: kind)
        if let linked { span.addLink(SpanLink(context: linked, attributes: [:])) }
        if attributes.count > 0 { span.updateAttributes { $0.merge(attributes) } }
        return Traced(span: span)
    }

    /// Runs `body` in a span of its own, ended when `body` returns or throws (the error's type
    /// is then the span's `error.type`). While tracing is off, `body` runs alone.
    /// The name and attributes are made only while tracing is on.
    public static func span<T, E: Error>(
        _ name: @autoclosure () -> String, kind: SpanKind = .internal,
        _ attributes: @autoclosure () -> SpanAttributes = [:],
        _ body: (Traced) async throws(E) -> T
    ) async throws(E) -> T {
        guard isOn else { return try await body(.none) }
        let traced = begin(name(), kind: kind, parent: .current, attributes())
        defer { traced.end() }
        let result: Result<T, E> = await within(traced) {
            do throws(E) { return .success(try await body(traced)) } catch { return .failure(error) }
        }
        if case .failure(let error) = result {
            // Only an error that names its own kind says what happened: another's text may carry
            // what a span must not (an HTTP client's error names the URL, which may be presigned).
            if let error = error as? any TracedError {
                traced.failed(error.errorType, String(describing: error))
            } else {
                traced.failed(String(describing: type(of: error)), String(describing: type(of: error)))
            }
        }
        return try result.get()
    }

    /// Runs `body` with `traced` as the current span: spans started meanwhile are its children.
    public static func within<T>(_ traced: Traced, _ body: () async -> T) async -> T {
        guard let context = traced.span?.context else { return await body() }
        return await ServiceContext.withValue(context) { await body() }
    }

    /// The context a W3C `traceparent` names, if the tracer can read it.
    static func context(_ traceparent: String?) -> ServiceContext? {
        guard let traceparent, !traceparent.isEmpty else { return nil }
        var context = ServiceContext.topLevel
        InstrumentationSystem.tracer.extract(["traceparent": traceparent], into: &context, using: HeaderDictionary())
        // A context the tracer found nothing in is as empty as it started.
        return context.isEmpty ? nil : context
    }
}

/// Headers as a dictionary, for the tracer's propagation of `traceparent`.
struct HeaderDictionary: Injector, Extractor {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

/// An error that names its own `error.type` (a short stable kind), rather than its Swift type,
/// and whose description is safe to show (no credential, no presigned URL): `ServiceError`.
public protocol TracedError: Error {
    var errorType: String { get }
}
