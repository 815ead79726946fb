import CurlHTTP
import Testing

@Suite("Redaction")
struct RedactTests {
    let presigned =
        "https://bucket.s3.amazonaws.com/uploads/a.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20261122%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=abc123"

    @Test("a URL loses its query string")
    func url() {
        #expect(Redact.url(presigned) == "https://bucket.s3.amazonaws.com/uploads/a.jpg?…")
        #expect(Redact.url("http://host/path") == "http://host/path")
    }

    @Test("signatures and credentials are masked anywhere in a text")
    func text() {
        let redacted = Redact.text("PUT \(presigned) failed")
        #expect(!redacted.contains("abc123"))
        #expect(!redacted.contains("AKIA"))
        #expect(redacted.contains("X-Amz-Signature=REDACTED"))
        #expect(redacted.hasSuffix(" failed"))
    }

    @Test("a credential the process holds is masked when a service echoes it back")
    func echoedSecret() {
        Redact.remember(secret: "k3y-0f-the-test-9c1e")
        Redact.remember(secret: "abc")  // too short to mask: it would blank common words
        let redacted = Redact.text("analyze answered HTTP 401: invalid APP-KEY k3y-0f-the-test-9c1e for abc")
        #expect(!redacted.contains("k3y-0f-the-test-9c1e"), "\(redacted)")
        #expect(redacted.contains("APP-KEY REDACTED for abc"), "\(redacted)")
    }
}
