import CurlHTTP
import Foundation
import Testing

@testable import ServiceClients

@Suite("Webhooks: signature, destinations, text, settings")
struct WebhookTests {
    @Test("the signature is Stripe's scheme: HMAC-SHA256 over '<t>.<body>', as Python's hmac computes it")
    func signatureVector() {
        // python3 -c "import hmac,hashlib; print(hmac.new(b'whsec_test', b'1732520000.{\"a\":1}', hashlib.sha256).hexdigest())"
        #expect(
            WebhookSignature.value(body: Data(#"{"a":1}"#.utf8), timestamp: 1_732_520_000, secret: Secret("whsec_test"))
                == "t=1732520000,v1=f9638afc0c09a3487585fa1fb50f0b726c6a42f3f1ca6d1653793b8965f9d725")
    }

    @Test("a destination is named by its host and a hash, never its path (a Slack URL's token); plain http only to an allowed host")
    func destinations() throws {
        let slack = try WebhookDestination("https://hooks.slack.com/services/T000/B000/SECRETTOKEN", allowedHosts: [])
        #expect(slack.name.hasPrefix("hooks.slack.com/") && !slack.name.contains("SECRET"))
        #expect(slack.addressRule == .publicOnly)
        #expect(throws: ServiceError.self) { try WebhookDestination("http://10.0.0.5/hook", allowedHosts: []) }
        let local = try WebhookDestination("http://10.0.0.5/hook", allowedHosts: ["10.0.0.5"])
        #expect(local.addressRule == .any)
        do {
            _ = try WebhookDestination("ftp://example.org/SECRETTOKEN", allowedHosts: [])
            Issue.record("an ftp URL was accepted")
        } catch {
            #expect(!error.description.contains("SECRETTOKEN"), "\(error)")
        }
        let two = try WebhookDestination.list("https://a.example/x, https://a.example/y https://a.example/x", allowedHosts: [])
        #expect(two.count == 2 && two[0].name != two[1].name)
        #expect(slack.hidingURL("POST https://hooks.slack.com/services/T000/B000/SECRETTOKEN failed") == "POST \(slack.name) failed")
    }

    @Test("the text line says what a person wants at 06:00, and links the report")
    func textLine() throws {
        let report =
            #"{"batch": "night 1", "jobs": 12000, "succeeded": 11980, "dead": 12, "cancelled": 8, "created_at": "2026-11-24T22:00:00+00:00", "ended_at": "2026-11-25T04:12:30.5+00:00", "original_bytes": 3328599654, "sent_bytes": 1288490188, "api_calls": 36000, "spend": 360, "top_errors": [{"kind": "file_not_found", "jobs": 9, "example": "…"}]}"#
        let body = try BatchNotice.body(reportJSON: report, deliveryID: "7-abc", consoleURL: "https://console.example.org/")
        let document = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(document["console_url"] as? String == "https://console.example.org/report?batch=night%201")
        #expect(
            document["text"] as? String == "discern: batch night 1 is done: 11,980 succeeded, 12 dead, 8 cancelled of 12,000 jobs in 6 h 12 min; "
                + "3.1 GB sent as 1.2 GB; 36,000 calls (spend 360.00); commonest error: file_not_found ×9. https://console.example.org/report?batch=night%201"
        )
    }

    @Test("retries wait twice as long each time, up to the maximum")
    func backoff() {
        var settings = WebhookSettings()
        settings.firstRetrySeconds = 10
        settings.maxRetrySeconds = 1800
        #expect([1, 2, 3, 8, 100].map { settings.retryDelay(afterAttempt: $0) } == [10, 20, 40, 1280, 1800])
    }

    @Test("the settings read DISCERN_WEBHOOK_*, and the names before 0.11, DISCERN_NOTIFY_*, where the new one is not set")
    func formerNames() throws {
        let former = try WebhookSettings(ServiceEnvironment(["DISCERN_NOTIFY_URLS": "https://a.example/x", "DISCERN_NOTIFY_SETTLE_SECONDS": "5"]))
        #expect(former.destinations.count == 1 && former.settleSeconds == 5)
        let both = try WebhookSettings(
            ServiceEnvironment(["DISCERN_WEBHOOK_URLS": "https://a.example/x https://a.example/y", "DISCERN_NOTIFY_URLS": "https://a.example/z"]))
        #expect(both.destinations.count == 2)
        #expect(throws: ServiceError.self) { try WebhookSettings(ServiceEnvironment(["DISCERN_NOTIFY_RETRY_SECONDS": "-1"])) }
    }
}
