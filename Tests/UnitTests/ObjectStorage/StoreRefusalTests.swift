import CurlHTTP
import Foundation
@testable import ObjectStorage
import Testing

/// What a refusal from the store means: judged by S3's error code first, its status second.
@Suite("Object storage: refusals by their S3 code")
struct StoreRefusalTests {
    static let keys = CredentialSource.keys(AWSCredentials(accessKeyID: "AKIASTATIC", secretAccessKey: "static-secret"), from: "AWS_ACCESS_KEY_ID")
    static let session = AWSCredentials(
        accessKeyID: "ASIASESSION", secretAccessKey: "session-secret", sessionToken: "token-1234567", expiration: Date())
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func judge(
        _ status: Int, _ body: String = "", headers: [HTTPHeader] = [], used: AWSCredentials = session, method: String = "GET",
        signedAt: Date = now, readBucketRecently: Bool = false
    ) -> (error: ObjectStorageError, remedy: StoreRefusal.Remedy?) {
        StoreRefusal.judge(
            HTTPResponse(status: status, headers: headers, body: Data(body.utf8)),
            StoreRefusal.Asked(
                method: method, what: "s3://fleet/night/a.jpg", bucket: "fleet", used: used, region: "us-east-1", source: keys, signedAt: signedAt,
                readBucketRecently: readBucketRecently))
    }

    static func error(_ code: String, _ message: String = "", extra: String = "") -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>\(message)</Message>\(extra)<RequestId>1</RequestId></Error>"
    }

    @Test("an archived object (InvalidObjectState, 403) is the photo's, with restoring as its advice: not a refused credential")
    func archived() {
        let judged = Self.judge(403, Self.error("InvalidObjectState", "The operation is not valid for the object's storage class"))
        #expect(judged.error.code == .archived && judged.remedy == nil && judged.error.message.contains("restore"))
    }

    @Test(
        "an expired session (ExpiredToken 400, InvalidToken, and InvalidAccessKeyId for temporary credentials) fetches new credentials; a long-lived key's InvalidAccessKeyId is refused"
    )
    func expiredSessions() {
        for code in ["ExpiredToken", "InvalidToken", "TokenRefreshRequired"] {
            #expect(Self.judge(400, Self.error(code)).remedy == .fetchCredentials, "\(code)")
        }
        #expect(Self.judge(403, Self.error("InvalidAccessKeyId")).remedy == .fetchCredentials)
        let longLived = Self.judge(
            403, Self.error("InvalidAccessKeyId"), used: AWSCredentials(accessKeyID: "AKIASTATIC", secretAccessKey: "static-secret"))
        #expect(longLived.remedy == nil && longLived.error.code == .refused && longLived.error.message.contains("AKIASTATIC"))
    }

    @Test(
        "a bucket in another region: PermanentRedirect's x-amz-bucket-region, AuthorizationHeaderMalformed's <Region>, a HEAD's bare 301; asked there"
    )
    func regions() {
        let redirect = Self.judge(
            301, Self.error("PermanentRedirect", extra: "<Endpoint>fleet.s3.eu-west-1.amazonaws.com</Endpoint>"),
            headers: [HTTPHeader("x-amz-bucket-region", "eu-west-1")])
        #expect(redirect.remedy == .askRegion("eu-west-1"))
        let malformed = Self.judge(
            400, Self.error("AuthorizationHeaderMalformed", "the region 'us-east-1' is wrong", extra: "<Region>ap-south-1</Region>"))
        #expect(malformed.remedy == .askRegion("ap-south-1"))
        #expect(Self.judge(301, headers: [HTTPHeader("x-amz-bucket-region", "eu-central-1")], method: "HEAD").remedy == .askRegion("eu-central-1"))
        let unknown = Self.judge(301, Self.error("PermanentRedirect"))
        #expect(unknown.remedy == nil && unknown.error.message.contains("AWS_REGION"))
        #expect(Self.judge(301, headers: [HTTPHeader("x-amz-bucket-region", "../evil")]).remedy == nil, "not a region name")
    }

    @Test(
        "a clock off by more than 5 minutes (RequestTimeTooSkewed, or any 403 whose Date says so) signs in the store's time; a plain AccessDenied is refused"
    )
    func clock() {
        let storeTime = "Sun, 29 Nov 2026 01:16:22 GMT"
        let skewed = Self.judge(403, Self.error("RequestTimeTooSkewed"), headers: [HTTPHeader("Date", storeTime)])
        #expect(skewed.remedy == .correctClock(StoreClock.httpDate(storeTime)!))
        // A signature 20 minutes behind the store, refused under another code: the Date tells.
        let behind = Self.judge(
            403, Self.error("SignatureDoesNotMatch"), headers: [HTTPHeader("Date", storeTime)],
            signedAt: StoreClock.httpDate(storeTime)!.addingTimeInterval(-1_200))
        #expect(behind.remedy == .correctClock(StoreClock.httpDate(storeTime)!) && behind.error.message.contains("1200 s behind"))
        let plain = Self.judge(
            403, Self.error("AccessDenied", "Access Denied"), headers: [HTTPHeader("Date", storeTime)], signedAt: StoreClock.httpDate(storeTime)!)
        #expect(plain.remedy == nil && plain.error.code == .refused)
        // Right after the same credential read another object of the bucket: this object's refusal.
        let one = Self.judge(
            403, Self.error("AccessDenied", "Access Denied"), headers: [HTTPHeader("Date", storeTime)], signedAt: StoreClock.httpDate(storeTime)!,
            readBucketRecently: true)
        #expect(one.remedy == nil && one.error.code == .rejected && one.error.message.contains("s3:ListBucket"), "\(one.error)")
        let ciphertext = Self.judge(403, Self.error("AccessDenied", "The ciphertext refers to a customer master key that does not exist"))
        #expect(ciphertext.error.message.contains("kms:Decrypt"))
        let kms = Self.judge(403, Self.error("AccessDenied", "User is not authorized to perform: kms:Decrypt"))
        #expect(kms.error.message.contains("kms:Decrypt on it"))
    }

    @Test(
        "SlowDown, 5xx and 429 are weather, waited out (Retry-After when it is a finite number); any other 4xx names its S3 code and is the object's")
    func weatherAndTheRest() {
        #expect(Self.judge(503, Self.error("SlowDown")).remedy == .wait(retryAfter: nil))
        #expect(Self.judge(500, "").remedy == .wait(retryAfter: nil))
        #expect(Self.judge(429, "", headers: [HTTPHeader("Retry-After", "3")]).remedy == .wait(retryAfter: 3))
        for hostile in ["nan", "inf", "-1", "1e400"] {
            #expect(Self.judge(503, "", headers: [HTTPHeader("Retry-After", hostile)]).remedy == .wait(retryAfter: nil), "\(hostile)")
        }
        let rejected = Self.judge(400, Self.error("InvalidRequest", "The object was stored using a form of Server Side Encryption"))
        #expect(rejected.error.code == .rejected && rejected.error.message.contains("InvalidRequest") && rejected.remedy == nil)
        #expect(Self.judge(404, "", method: "HEAD").error.code == .noSuchKey)
        #expect(Self.judge(404, Self.error("NoSuchBucket")).error.code == .noSuchBucket)
        let notImplemented = Self.judge(501, Self.error("NotImplemented", "A header you provided implies functionality that is not implemented"))
        #expect(notImplemented.remedy == nil && notImplemented.error.code == .rejected, "the store does not do it: asking again changes nothing")
        #expect(Self.judge(400, "", method: "HEAD").remedy == .fetchCredentials, "a HEAD's bare 400 for a session: most likely it ran out")
    }

    @Test("an HTTP Date is read as RFC 7231 writes it, and nothing else")
    func httpDates() {
        #expect(StoreClock.httpDate("Sun, 29 Nov 2026 01:16:22 GMT") == Date(timeIntervalSince1970: 1_795_914_982))
        for bad in [
            "", "yesterday", "Sun, 29 Nov 2026 01:16:22 CET", "Sun, 32 Nov 2026 01:16:22 GMT", "Sun, 29 Foo 2026 01:16:22 GMT",
            "Sun, 29 Nov 2026 25:00:00 GMT"
        ] {
            #expect(StoreClock.httpDate(bad) == nil, "\(bad)")
        }
    }
}
