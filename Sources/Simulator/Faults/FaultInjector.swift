import Foundation
import Hummingbird

/// Stands in front of every API route: records the call, adds latency, and answers with a fault
/// when the dice say so, in the failing service's own style. S3 uploads pass untouched (their
/// fault is the expired URL, handed out by /upload-url).
/// An answer given to a route (`ooto.identify`, `azure.detect`) ahead of the simulated logic;
/// nil lets the simulator answer.
package typealias ReplyOverride = @Sendable (_ route: String) async -> Response?

struct FaultInjector: Sendable {
    let configuration: SimulatorConfiguration
    let stats: SimulatorStats
    let override: ReplyOverride?
    var faults: SimulatorConfiguration.Faults { configuration.faults }
    var clock: @Sendable () -> Date { configuration.clock }

    enum Style: Sendable { case gateway, azure }

    /// Runs `handler` unless a scripted reply or an injected fault answers first.
    func guarded(
        _ service: String, route: String, style: Style = .gateway, _ request: Request,
        _ handler: () async throws -> Response
    ) async throws -> Response {
        let correlationID = request.header("X-Correlation-ID")
        let arrived = request.arrival(configuration)
        await stats.record(
            service: service, route: route, correlationID: correlationID, at: arrived,
            read: request.readTime(configuration), kernelStamped: !request.isUnstamped)
        if let traceparent = request.header("traceparent") {
            await stats.recordTraceparent(traceparent, route: route, correlationID: correlationID)
        }
        if faults.latencyMedianSeconds > 0 {
            let sample = faults.latencyMedianSeconds * exp(faults.latencySpread * Self.standardNormal())
            try await Task.sleep(for: .seconds(min(sample, 60)))
        }
        if let reply = await override?(route) { return reply }
        if roll(faults.timeoutRate) {
            await stats.recordFault("timeout")
            try await Task.sleep(for: .seconds(faults.hangSeconds))
            return Reply.json(.gatewayTimeout, ["message": "Endpoint request timed out"])
        }
        if roll(faults.serverErrorRate) {
            await stats.recordFault("5xx")
            let status: HTTPResponse.Status = [.internalServerError, .badGateway, .serviceUnavailable].randomElement()!
            return style == .azure
                ? Reply.json(status, ["error": ["code": "InternalServerError", "message": "An internal server error occurred."]])
                : Reply.json(status, ["message": "Internal Server Error"])
        }
        if roll(faults.rateLimitRate) {
            await stats.recordFault("429")
            let wait = faults.retryAfterSeconds
            let issued = clock()
            await stats.retryAfter(correlationID: correlationID, arrived: arrived, issued: issued, until: issued.addingTimeInterval(Double(wait)))
            // Azure documents no Retry-After header: the wait is only in the message.
            if style == .azure {
                return Reply.json(.tooManyRequests, ["error": ["code": "429", "message": "Rate limit is exceeded. Try again in \(wait) seconds."]])
            }
            var response = Reply.json(.tooManyRequests, ["message": "Too Many Requests"])
            response.headers[.retryAfter] = "\(wait)"
            return response
        }
        if roll(faults.malformedRate) {
            await stats.recordFault("malformed")
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"success": true, "result": {"search": {"templ"#)))
        }
        return try await handler()
    }

    private func roll(_ rate: Double) -> Bool { rate > 0 && Double.random(in: 0..<1) < rate }

    private static func standardNormal() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1), u2 = Double.random(in: 0..<1)
        return sqrt(-2 * log(u1)) * cos(2 * .pi * u2)
    }
}
