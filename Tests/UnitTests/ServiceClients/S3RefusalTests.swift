import Foundation
import Testing
@testable import ServiceClients

/// What an S3 refusal of the upload means for the photo: the network's or the signer's weather
/// is retried, only a refusal of the request itself ends it.
@Suite("S3 refusals")
struct S3RefusalTests {
    static func refusal(_ status: Int, _ code: String, _ message: String = "m") -> ServiceError {
        let document = S3ErrorDocument(Data("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8))
        return DiscernerClient.refusal(status: status, document, step: "S3 upload of uploads/a.jpg", retryAfter: nil)
    }

    @Test("a slow or cut upload is the network's; an expired token or a skewed clock gets a fresh URL; a refused request ends the photo")
    func classified() {
        for (status, code) in [(400, "RequestTimeout"), (400, "IncompleteBody")] {
            let error = Self.refusal(status, code)
            #expect(error.code == .network && error.isRetryable && error.serviceSignal == .down, "\(code)")
        }
        for (status, code, message) in [
            (400, "ExpiredToken", "The provided token has expired."), (403, "RequestTimeTooSkewed", "skew"),
            (403, "AccessDenied", "Request has expired")
        ] {
            let error = Self.refusal(status, code, message)
            #expect(error.code == .uploadExpired && error.isRetryable, "\(code)")
        }
        #expect(Self.refusal(403, "SignatureDoesNotMatch").code == .uploadRejected)
        #expect(Self.refusal(400, "EntityTooLarge").code == .clientError)
        #expect(Self.refusal(503, "SlowDown").code == .serverError)
    }
}
