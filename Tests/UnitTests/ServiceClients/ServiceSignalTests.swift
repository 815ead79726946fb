import ErrorCodes
import CurlHTTP
import Testing
@testable import ServiceClients

/// What a failure says of the service, for the breaker: its own trouble trips it, a photo's
/// refusal means it is up, this side's limits say nothing.
@Suite("Service signal")
struct ServiceSignalTests {
    @Test(
        "reset connections, timeouts, 5xx, a 429 beyond its wait, a garbled answer that may read right next time and a refused credential say the service is down (for us); refused, DNS and TLS that it was not even reached"
    )
    func down() {
        for code: HTTPError.Code in [.transport, .timeout] {
            #expect(ServiceError.transport(HTTPError(code, "x"), during: "analyze").serviceSignal == .down, "\(code)")
        }
        for code: HTTPError.Code in [.connectFailed, .tls] {
            #expect(ServiceError.transport(HTTPError(code, "x"), during: "analyze").serviceSignal == .unreachable, "\(code)")
        }
        for code: ServiceError.Code in [.serverError, .rateLimited, .analysisFailed, .badResponse, .responseTooLarge, .authFailed] {
            #expect(ServiceError(code, "x").serviceSignal == .down, "\(code)")
        }
    }

    @Test("a photo's refusal and an answer this version cannot read say it is up; this side's limits and settings say nothing")
    func upOrUnknown() {
        for code: ServiceError.Code in [.clientError, .inputRejected, .serviceIncompatible, .uploadRejected] {
            #expect(ServiceError(code, "x").serviceSignal == .up, "\(code)")
        }
        for code: ServiceError.Code in [
            .notStarted, .slotMissed, .capReached, .cancelled, .rateLimiterUnavailable, .misconfigured, .badParams,
            .destinationRefused
        ] {
            #expect(ServiceError(code, "x").serviceSignal == .unknown, "\(code)")
        }
    }

    @Test("a TLS failure is retried, never a photo's death; a rate gate PostgreSQL could not serve costs no attempt")
    func weatherNotPhotos() {
        let tls = ServiceError.transport(HTTPError(.tls, "SSL certificate problem: certificate has expired"), during: "analyze")
        #expect(tls.isRetryable && tls.kind == "tls_failed")
        #expect(ServiceError(.rateLimiterUnavailable, "x").registered.attempt == .notCounted, "a rate gate PostgreSQL could not serve is the weather")
    }
}
