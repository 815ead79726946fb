import Foundation
@testable import ObjectStorage
import Testing

@Suite("Object storage: addresses, signatures, answers")
struct ObjectStorageTests {
    @Test("s3:// addresses: a valid bucket name and a key of 1-1024 bytes, kept as written; anything else is no address")
    func addresses() {
        #expect(ObjectAddress("s3://fleet-uploads/cameras/2026-11-27/truck 17.jpg")?.key == "cameras/2026-11-27/truck 17.jpg")
        #expect(ObjectAddress("s3://fleet/a//b/../c.jpg")?.key == "a//b/../c.jpg", "keys are names, not paths")
        for bad in [
            "s3://fleet", "s3://fleet/", "s3://Fleet/x.jpg", "s3://fl/x.jpg", "s3://-fleet/x.jpg", "s3://169.254.169.254:80/x",
            "s3://fleet_uploads/x.jpg", "s3:/fleet/x.jpg", "/photos/x.jpg", "s3://fleet/" + String(repeating: "k", count: 1025),
            "s3://fleet/x\u{0}.jpg", "s3://user@fleet/x.jpg"
        ] {
            #expect(ObjectAddress(bad) == nil, "\(bad)")
        }
    }

    @Test("a prefix admits the keys that start with it, in its bucket only, as S3's own prefixes do")
    func prefixes() throws {
        let cameras = try #require(ObjectPrefix("s3://fleet/cameras/"))
        #expect(cameras.admits(try #require(ObjectAddress("s3://fleet/cameras/a.jpg"))))
        #expect(!cameras.admits(try #require(ObjectAddress("s3://fleet/cameras-old/a.jpg"))))
        #expect(!cameras.admits(try #require(ObjectAddress("s3://other/cameras/a.jpg"))))
        #expect(!cameras.admits(try #require(ObjectAddress("s3://fleet/private/../cameras/a.jpg"))), "no .. is taken out")
        let bucket = try #require(ObjectPrefix("s3://fleet"))
        let anything = try #require(ObjectAddress("s3://fleet/anything.jpg"))
        #expect(bucket.prefix == "" && bucket.admits(anything))
        #expect(ObjectPrefix("s3://BAD/x") == nil && ObjectPrefix("/photos") == nil)
    }

    @Test("the signature of AWS's own SigV4 example for S3 (GET /test.txt with a Range header, 24 May 2013)")
    func awsExample() throws {
        let credentials = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let headers = RequestSigner(credentials: credentials, region: "us-east-1").headers(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            query: [], extra: [("Range", "bytes=0-9")],
            at: Date(timeIntervalSince1970: 1_369_353_600))
        let authorization = headers.first { $0.0 == "Authorization" }?.1
        #expect(
            authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test("a listing page: keys with sizes and ETags, entities decoded, the continuation token; garbage and half-documents are refused")
    func listings() throws {
        let page = try StoreAnswers.listPage(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>fleet</Name><IsTruncated>true</IsTruncated>
                <Contents><Key>night/a&amp;b &lt;1&gt;.jpg</Key><Size>2048</Size><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag></Contents>
                <Contents><Key>night/c.jpg</Key><Size>0</Size><ETag>"x-2"</ETag><Owner><ID>o</ID></Owner></Contents>
                <NextContinuationToken>night/c.jpg</NextContinuationToken></ListBucketResult>
                """.utf8))
        #expect(
            page.entries == [
                .init(key: "night/a&b <1>.jpg", size: 2048, etag: "9b2cf535f27731c974343645a3985328"),
                .init(key: "night/c.jpg", size: 0, etag: "x-2")
            ])
        #expect(page.nextToken == "night/c.jpg")
        for bad in [
            "not xml", "<Error><Code>AccessDenied</Code></Error>", "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>",
            "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
            "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>"
        ] {
            #expect(throws: ObjectStorageError.self, "\(bad)") { _ = try StoreAnswers.listPage(Data(bad.utf8)) }
        }
    }

    @Test("an error answer: its code and message, or nothing from a body that is not one")
    func errors() {
        let said = StoreAnswers.error(
            Data(
                "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message><StringToSign>AWS4-HMAC-SHA256...</StringToSign></Error>"
                    .utf8))
        #expect(said?.code == "SignatureDoesNotMatch" && said?.message.hasPrefix("The request signature") == true)
        #expect(StoreAnswers.error(Data()) == nil && StoreAnswers.error(Data("<html>502</html>".utf8)) == nil)
    }
}

@Suite("Object storage: listings asked with encoding-type=url, and where a request goes")
struct ListingAndAddressingTests {
    @Test("keys arrive percent-encoded with + for a space, as S3 and SeaweedFS send them; control characters, %, + and non-ASCII come back exactly")
    func encodedKeys() throws {
        let page = try StoreAnswers.listPage(
            Data(
                """
                <ListBucketResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>
                <Contents><Key>k/a+b.jpg</Key><Size>1</Size><ETag>"e"</ETag></Contents>
                <Contents><Key>k/a%2Bb.jpg</Key><Size>1</Size><ETag>"e"</ETag><StorageClass>GLACIER</StorageClass></Contents>
                <Contents><Key>k/ctl%01%09.jpg</Key><Size>1</Size><ETag>"e"</ETag><StorageClass>DEEP_ARCHIVE</StorageClass>
                <RestoreStatus><IsRestoreInProgress>false</IsRestoreInProgress><RestoreExpiryDate>2026-12-01T00:00:00.000Z</RestoreExpiryDate></RestoreStatus></Contents>
                <Contents><Key>k/100%25-%C3%A9t%C3%A9;~&amp;=.jpg</Key><Size>1</Size><ETag>"e"</ETag><StorageClass>GLACIER_IR</StorageClass></Contents>
                </ListBucketResult>
                """.utf8))
        #expect(page.entries.map(\.key) == ["k/a b.jpg", "k/a+b.jpg", "k/ctl\u{1}\t.jpg", "k/100%-été;~&=.jpg"])
        #expect(page.entries.map(\.isArchived) == [false, true, false, false], "restored, and Instant Retrieval, read as any other")
        #expect(throws: ObjectStorageError.self) {
            _ = try StoreAnswers.listPage(
                Data("<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>k/%zz</Key><Size>1</Size></Contents></ListBucketResult>".utf8))
        }
        #expect(StoreAnswers.formDecoded("%C3%28") == nil, "not UTF-8")
    }

    @Test(
        "virtual-host style on AWS, but by path for a bucket with a dot (no certificate covers it); a bucket found in another region is asked at that region's endpoint"
    )
    func addressing() throws {
        let aws = ObjectStore(
            settings: StoreSettings(
                endpoint: try #require(URL(string: "https://s3.us-east-1.amazonaws.com")), region: "us-east-1", addressing: .virtual,
                credentials: .keys(AWSCredentials(accessKeyID: "AKIA", secretAccessKey: "s"), from: "test"), endpointIsAWS: true))
        #expect(aws.location(bucket: "fleet", key: "a b.jpg", region: "us-east-1") == ("https", "fleet.s3.us-east-1.amazonaws.com", "/a%20b.jpg"))
        #expect(
            aws.location(bucket: "fleet.photos", key: "x.jpg", region: "us-east-1") == ("https", "s3.us-east-1.amazonaws.com", "/fleet.photos/x.jpg"))
        #expect(
            aws.location(bucket: "fleet", key: "a/./b//c.jpg", region: "eu-west-1") == ("https", "fleet.s3.eu-west-1.amazonaws.com", "/a/./b//c.jpg"))
        let own = ObjectStore(
            settings: StoreSettings(
                endpoint: try #require(URL(string: "http://minio.internal:9000")), region: "us-east-1", addressing: .path, accessKeyID: "AKIA",
                secretAccessKey: "s"))
        #expect(own.location(bucket: "fleet", key: "k.jpg", region: "eu-west-1") == ("http", "minio.internal:9000", "/fleet/k.jpg"))
    }
}
