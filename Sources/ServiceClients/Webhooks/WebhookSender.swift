import CurlHTTP
import Foundation

/// Sends a webhook to one destination, signed when a secret is set (`WebhookSignature`),
/// and says what came of it. Any 2xx is delivered; anything else (another status, no answer, an
/// address the destination's rule refuses) is a failure the caller retries with backoff.
/// Messages name the destination, never its URL.
public struct WebhookSender: Sendable {
    public enum Result: Sendable, Equatable {
        case delivered(status: Int)
        case failed(status: Int?, message: String)
    }

    let http: CurlHTTPClient
    let secret: Secret?
    let timeoutSeconds: Double
    let userAgent: String

    public init(secret: Secret?, timeoutSeconds: Double = 15, version: String) {
        http = CurlHTTPClient(configuration: .init(threads: 2, connectTimeoutSeconds: min(10, timeoutSeconds)))
        self.secret = secret
        self.timeoutSeconds = timeoutSeconds
        userAgent = "discern/\(version)"
    }

    public func send(_ body: Data, deliveryID: String, to destination: WebhookDestination) async -> Result {
        var headers = [
            HTTPHeader("User-Agent", userAgent), HTTPHeader("Discern-Delivery", deliveryID), HTTPHeader("Discern-Event", BatchNotice.event)
        ]
        if let secret {
            headers.append(
                HTTPHeader(WebhookSignature.header, WebhookSignature.value(body: body, timestamp: Int(Date().timeIntervalSince1970), secret: secret)))
        }
        var request = HTTPRequest.json(url: destination.url, body: body, headers: headers, timeoutSeconds: timeoutSeconds)
        request.maxResponseBytes = 64 * 1024
        request.addressRule = destination.addressRule
        do {
            let response = try await http.send(request)
            if (200..<300).contains(response.status) { return .delivered(status: response.status) }
            let said = String(decoding: response.body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failed(
                status: response.status,
                message: destination.hidingURL(
                    "\(destination.name) answered HTTP \(response.status)" + (said.isEmpty ? "" : ": \(Redact.text(said))")))
        } catch {
            return .failed(
                status: nil, message: destination.hidingURL("\(destination.name) was not reached: \((error as? HTTPError)?.message ?? "\(error)")"))
        }
    }
}
