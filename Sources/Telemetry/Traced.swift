import Tracing

/// A span in progress, or nothing while tracing is off: every method is then a no-op, so code
/// on the hot path calls them without asking whether tracing is on.
public struct Traced: Sendable {
    let span: (any Span)?

    public static let none = Traced(span: nil)

    /// Sets one attribute (`messaging.batch.message_count`, `http.response.status_code`...).
    public func set(_ key: String, _ value: some SpanAttributeConvertible & Sendable) {
        span?.updateAttributes { $0[key] = value }
    }

    /// Marks the span failed: `error.type` is the short stable kind of the failure (a job's
    /// error kind, an HTTP status), the status says what happened.
    public func failed(_ errorType: String, _ message: String) {
        guard let span else { return }
        span.updateAttributes { $0["error.type"] = errorType }
        span.setStatus(SpanStatus(code: .error, message: message))
    }

    /// Links this span to another trace's span (a claim to each job it took).
    public func link(to traceparent: String?) {
        guard let span, let other = Traces.context(traceparent) else { return }
        span.addLink(SpanLink(context: other, attributes: [:]))
    }

    /// This span as a W3C `traceparent` (stored with a job, sent to a service as a header).
    public var traceparent: String? {
        guard let span else { return nil }
        var headers: [String: String] = [:]
        InstrumentationSystem.tracer.inject(span.context, into: &headers, using: HeaderDictionary())
        return headers["traceparent"]
    }

    public func end() { span?.end() }
}

/// The attributes of OpenTelemetry's messaging conventions, with discern as the messaging
/// system and a service's name as the destination (its jobs are its queue).
public enum Messaging {
    /// `operation`: discern's own name for it (claim, process, complete, enqueue); `type`: the
    /// convention's (create, send, receive, process, settle).
    public static func attributes(_ operation: String, type: String, service: String?, jobID: Int? = nil) -> SpanAttributes {
        var attributes: SpanAttributes = [:]
        attributes["messaging.system"] = "discern"
        attributes["messaging.operation.name"] = operation
        attributes["messaging.operation.type"] = type
        if let service { attributes["messaging.destination.name"] = service }
        if let jobID { attributes["messaging.message.id"] = String(jobID) }
        return attributes
    }
}
