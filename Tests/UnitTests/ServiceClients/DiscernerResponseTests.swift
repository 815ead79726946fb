import AnalysisModel
@testable import CurlHTTP
import Foundation
import JobQueue
import TestFixtures
import Testing

@testable import ServiceClients

@Suite("Image Discerner answers")
struct DiscernerResponseTests {
    static func answer(body: String, success: String = "true") -> Data {
        Data(
            #"{"success": \#(success), "execution_arn": "arn:x", "analysis_result": {"statusCode": 200, "body": \#(body)}, "processing_time_seconds": 8.1}"#
                .utf8)
    }

    @Test("identifiers: jurisdiction optional, tail and other ids, unknown prefixes kept as other ids")
    func identifiers() {
        var entity = Entity(type: "x", category: "x")
        DiscernerEntities.read(["license_plate:XYZ9", "tail_id:N123AB", "other_id:42", "vin:1HGCM", "fleet:", "fleet:A:B"], into: &entity)
        #expect(entity.licensePlate == "XYZ9" && entity.licensePlateJurisdiction == nil)
        #expect(entity.tailID == "N123AB")
        #expect(entity.fleetID == "A:B")
        #expect(entity.otherIDs == ["42", "vin:1HGCM", "fleet:"])
        #expect(entity.identifiers.count == 6)
    }

    @Test("format 2.0 lands in the same shape: one primary entity")
    func formatTwo() throws {
        let data = Self.answer(
            body: """
                {"analysis_complete": true, "timestamp": "2026-11-22T01:02:03Z",
                 "primary_subject": {"category": "commercial_vehicle", "subcategory": "delivery_van", "operator": "UPS", "fleet_id": "1Z2345",
                   "confidence": 0.93, "additional_details": {"license_plate": "ABC-1234", "text_identifiers": ["UPS", "1Z2345"], "description": "A UPS truck"}},
                 "detailed_analysis": {}, "processing_metadata": {"response_format_version": "2.0"}}
                """)
        let analysis = try DiscernerResponse.map(data)
        #expect(analysis.category == "commercial_vehicle")
        #expect(analysis.subcategory == "delivery_van")
        #expect(analysis.serviceOperator == "UPS")
        #expect(analysis.fleetID == "1Z2345")
        #expect(analysis.licensePlate == "ABC-1234")
        #expect(analysis.confidence == 0.93)
        #expect(analysis.textIdentifiers == ["UPS", "1Z2345"])
        #expect(analysis.description == "A UPS truck")
        #expect(analysis.rawResponseJSON == String(decoding: data, as: UTF8.self))
        let entity = try #require(analysis.entities.first)
        #expect(analysis.entities.count == 1 && entity.isPrimary)
        #expect(entity.type == "commercial_vehicle:delivery_van" && entity.identifiers == ["fleet:1Z2345", "license_plate:unknown:ABC-1234"])
    }

    @Test("nothing recognised: one unknown entity (as the service sends) or none is an unidentified result")
    func unknownSubject() throws {
        for body in [
            #"{"analysis_complete": true, "entities": [{"type": "unknown", "operator": null, "identifiers": [], "confidence": 0.0, "properties": {}}], "processing_metadata": {"response_format_version": "3.0"}}"#,
            #"{"analysis_complete": true, "entities": [], "processing_metadata": {"response_format_version": "3.0"}}"#,
            #"{"primary_subject": {"category": "unknown", "subcategory": "unidentified", "operator": null, "confidence": 0.0}, "processing_metadata": {"response_format_version": "2.0"}}"#
        ] {
            let analysis = try DiscernerResponse.map(Self.answer(body: body))
            #expect(analysis.category == "unknown")
            #expect(analysis.outcome == "unidentified")
            #expect(analysis.serviceOperator == nil)
            #expect(analysis.confidence == 0)
        }
    }

    @Test(
        "a workflow that did not complete is not a result, whatever the HTTP status said",
        arguments: [
            #"{"success": true, "analysis_result": {"statusCode": 200, "body": {"analysis_complete": false, "error": "half done"}}}"#,
            #"{"success": true, "analysis_result": {"statusCode": 500, "body": {"error": "Result aggregation failed: boom", "analysis_complete": false}}}"#,
            #"{"success": true, "analysis_result": {"statusCode": 400, "body": {"error": "Expected 2 parallel results, got 1."}}}"#,
            #"{"success": true, "analysis_result": {"statusCode": "inf", "body": {}}}"#,
            #"{"success": false, "error": "Step Functions execution failed"}"#
        ])
    func notComplete(text: String) throws {
        let error = try #require(throws: ServiceError.self) { try DiscernerResponse.map(Data(text.utf8)) }
        #expect(error.code == .analysisFailed)
        #expect(error.isRetryable)
    }

    @Test(
        "garbage is a retryable bad_response with a readable message",
        arguments: [
            "<html>502 Bad Gateway</html>", "{}", #"{"success": true}"#, #"{"success": true, "analysis_result": {"statusCode": 200, "body": {}}}"#,
            #"{"success": true, "analysis_result": {"statusCode": 200, "body": {"entities": "none", "processing_metadata": {"response_format_version": "3.0"}}}}"#
        ])
    func garbage(text: String) throws {
        let error = try #require(throws: ServiceError.self) { try DiscernerResponse.map(Data(text.utf8)) }
        #expect(error.code == .badResponse)
        #expect(error.isRetryable)
    }

    @Test("hostile values read as nothing: non-finite, out-of-range or huge numbers, enormous strings")
    func hostileValues() throws {
        let long = String(repeating: "X", count: 100_000)
        let analysis = try DiscernerResponse.map(
            Self.answer(
                body: """
                    {"entities": [{"type": "\(long)", "operator": "\(long)", "identifiers": ["fleet:\(long)"], "confidence": "inf", "properties": []},
                                  {"type": "a:b", "confidence": 1e308}, {"type": "c", "confidence": 123456789012345678901234567890}, 7, null],
                     "processing_metadata": {"response_format_version": "3.0"}}
                    """))
        #expect(analysis.entities.count == 3)
        #expect(analysis.entities.allSatisfy { $0.confidence == nil })
        #expect(analysis.entities[0].type.count <= 129 && (analysis.entities[0].serviceOperator?.count ?? 0) <= 513)
        #expect((analysis.entities[0].fleetID?.count ?? 0) <= 257)
    }

    @Test("an S3 error document yields its code and message only")
    func s3ErrorDocument() {
        let document = S3ErrorDocument(
            Data(
                """
                <?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>nope</Message><SignatureProvided>abc</SignatureProvided></Error>
                """.utf8))
        #expect(document.code == "SignatureDoesNotMatch")
        #expect(document.message == "nope")
    }

    @Test("the PUT carries exactly the signed headers; an unknown signed header is refused before upload")
    func signedHeaders() throws {
        let base = "https://bucket.s3.amazonaws.com/uploads/a.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ff&X-Amz-SignedHeaders="
        let service = UploadGrant.Destinations(serviceURL: "https://api.example.org/prod", allowedHosts: [])
        let withEncryption = try UploadGrant(
            url: base + "content-type%3Bhost%3Bx-amz-server-side-encryption", imageKey: "k", bucket: "b",
            contentType: "image/jpg", destinations: service)
        #expect(withEncryption.headers.map(\.name) == ["Content-Type", "x-amz-server-side-encryption"])
        #expect(withEncryption.headers.map(\.value) == ["image/jpg", "AES256"])
        #expect(withEncryption.addressRule == .publicOnly, "a URL at another host than the service's reaches public addresses only")
        let without = try UploadGrant(url: base + "host", imageKey: "k", bucket: "b", contentType: "image/png", destinations: service)
        #expect(without.headers.map(\.name) == ["Content-Type"], "no unsigned x-amz-* header: S3 refuses them")
        let unknown = #expect(throws: ServiceError.self) {
            _ = try UploadGrant(url: base + "host%3Bx-amz-meta-owner", imageKey: "k", bucket: "b", contentType: "image/jpg", destinations: service)
        }
        #expect(unknown?.kind == "discerner_unsupported_upload_url")
    }

    @Test("an upload goes to the service's own scheme and host, or over https to a public address, or to a host the allow-list names")
    func uploadDestinations() throws {
        func grant(_ url: String, service: String = "http://127.0.0.1:8080", allowed: Set<String> = []) throws(ServiceError) -> UploadGrant {
            try UploadGrant(
                url: url, imageKey: "k", bucket: "b", contentType: "image/jpg",
                destinations: .init(serviceURL: service, allowedHosts: allowed))
        }
        #expect(try grant("http://127.0.0.1:8080/b/k?X-Amz-SignedHeaders=host").addressRule == .any, "the service's own host (the simulator)")
        let plain = #expect(throws: ServiceError.self) { _ = try grant("http://169.254.169.254/latest/meta-data?X-Amz-SignedHeaders=host") }
        #expect(plain?.kind == "upload_destination_refused" && plain?.isRetryable == false && plain?.message.contains("169.254.169.254") == true)
        #expect(throws: ServiceError.self) { _ = try grant("http://127.0.0.1:9090/b/k?X-Amz-SignedHeaders=host") }
        #expect(try grant("https://127.0.0.2:8080/b/k?X-Amz-SignedHeaders=host").addressRule == .publicOnly)
        #expect(try grant("https://uploads.internal/b/k?X-Amz-SignedHeaders=host", allowed: ["uploads.internal"]).addressRule == .any)
        #expect(try grant("https://anything/b/k?X-Amz-SignedHeaders=host", allowed: ["*"]).addressRule == .any)
        // Plain http to an internal store only when it is named exactly, never by `*`.
        #expect(try grant("http://minio.internal:9000/b/k?X-Amz-SignedHeaders=host", allowed: ["minio.internal"]).addressRule == .any)
        #expect(throws: ServiceError.self) { _ = try grant("http://minio.internal:9000/b/k?X-Amz-SignedHeaders=host", allowed: ["*"]) }
    }

    @Test(
        "public addresses only: loopback, private, link-local, site-local, shared, unique-local, documentation and IPv4-in-IPv6 forms of them are refused"
    )
    func addressRule() {
        func v4(_ text: String) -> Bool {
            var address = in_addr()
            inet_pton(AF_INET, text, &address)
            return AddressRule.isPublic(v4: UInt32(bigEndian: address.s_addr))
        }
        func v6(_ text: String) -> Bool {
            var address = in6_addr()
            inet_pton(AF_INET6, text, &address)
            return AddressRule.isPublic(v6: withUnsafeBytes(of: address) { Array($0) })
        }
        for refused in [
            "127.0.0.1", "127.0.0.2", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1"
        ] {
            #expect(!v4(refused), "\(refused)")
        }
        for open in ["8.8.8.8", "52.216.0.1", "172.32.0.1", "100.128.0.1", "11.0.0.1"] { #expect(v4(open), "\(open)") }
        for refused in [
            "::1", "::", "fe80::1", "fd00::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "2001:db8::1",
            "::127.0.0.1", "::10.0.0.1", "::8.8.8.8", "fec0::1", "2002:7f00:1::1", "2002:a9fe:a9fe::1", "2001:0:4136:e378::1",
            "64:ff9b:1::a00:1", "100::1", "2001:2::1", "3fff::1", "2001:10::1"
        ] {
            #expect(!v6(refused), "\(refused)")
        }
        for open in [
            "2606:4700::1111", "::ffff:8.8.8.8", "2a00:1450::1", "2002:808:808::1", "64:ff9b::808:808", "2001:4860::8888", "2001:3::1", "3ff0::1"
        ] { #expect(v6(open), "\(open)") }
    }

    @Test("an OOTO error code nobody documented becomes one kind, ooto_refused, with the code in the message (labels stay few)")
    func unknownOOTOCodes() {
        for code in [7, 77, 123456789] {
            let body = Data(#"{"transactionId": "t", "result": {"status": "error", "code": \#(code), "info": "odd"}}"#.utf8)
            let error = OOTOResponse.failure(HTTPResponse(status: 400, headers: [], body: body), step: "OOTO identify")
            #expect(error.kind == "ooto_refused" && error.message.contains("code \(code)"), "\(error.kind): \(error.message)")
        }
    }
}
