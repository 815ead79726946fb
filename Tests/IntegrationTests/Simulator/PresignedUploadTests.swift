import AnalysisModel
import CurlHTTP
import Foundation
import Imaging
import SampleImages
import Simulator
import TestFixtures
import Testing

/// The simulated S3 endpoint refuses what real S3 refuses.
@Suite("Simulator: presigned uploads", .integrationTimeLimit)
struct PresignedUploadTests {
    static let http = CurlHTTPClient()

    struct Grant {
        let url: String
        let contentType: String
    }

    static func grant(_ simulator: RunningSimulator, fileExtension: String = "jpg") async throws -> Grant {
        let response = try await http.send(
            .json(url: "\(simulator.baseURL)/upload-url", body: Data(#"{"file_extension": "\#(fileExtension)"}"#.utf8)))
        #expect(response.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        return Grant(url: try #require(object["upload_url"] as? String), contentType: try #require(object["content_type"] as? String))
    }

    static func put(_ url: String, contentType: String, body: Data = Data("image".utf8), sse: Bool = true) async throws -> HTTPResponse {
        var headers = [HTTPHeader("Content-Type", contentType)]
        if sse { headers.append(HTTPHeader("x-amz-server-side-encryption", "AES256")) }
        return try await http.send(HTTPRequest(method: "PUT", url: url, headers: headers, body: .bytes(body)))
    }

    @Test("a correctly signed PUT with the signed headers is accepted")
    func acceptsValidUpload() async throws {
        try await TestSimulator.with { simulator in
            let grant = try await Self.grant(simulator)
            #expect(grant.contentType == "image/jpg")
            #expect(try await Self.put(grant.url, contentType: grant.contentType).status == 200)
        }
    }

    @Test("a PUT with another content type than the signed one is refused")
    func refusesWrongContentType() async throws {
        try await TestSimulator.with { simulator in
            let grant = try await Self.grant(simulator)
            let response = try await Self.put(grant.url, contentType: "image/jpeg")
            #expect(response.status == 403)
            #expect(response.bodySnippet.contains("<Code>SignatureDoesNotMatch</Code>"))
        }
    }

    @Test("a PUT without the signed server-side-encryption header is refused")
    func refusesMissingSignedHeader() async throws {
        try await TestSimulator.with { simulator in
            let grant = try await Self.grant(simulator)
            #expect(try await Self.put(grant.url, contentType: grant.contentType, sse: false).status == 403)
        }
    }

    @Test("a PUT with a tampered signature or path is refused")
    func refusesWrongSignature() async throws {
        try await TestSimulator.with { simulator in
            let grant = try await Self.grant(simulator)
            let lastCharacter = grant.url.last == "0" ? "1" : "0"
            let tampered = String(grant.url.dropLast()) + lastCharacter
            let response = try await Self.put(tampered, contentType: grant.contentType)
            #expect(response.status == 403)
            #expect(response.bodySnippet.contains("SignatureDoesNotMatch"))

            let otherKey = grant.url.replacingOccurrences(of: "/uploads/", with: "/uploads/x")
            #expect(try await Self.put(otherKey, contentType: grant.contentType).status == 403)
        }
    }

    @Test("a PUT after the URL expired is refused with AccessDenied")
    func refusesExpiredURL() async throws {
        let clock = TestClock()
        try await TestSimulator.with(SimulatorConfiguration(clock: { clock.now })) { simulator in
            let grant = try await Self.grant(simulator)
            clock.advance(by: 901)
            let response = try await Self.put(grant.url, contentType: grant.contentType)
            #expect(response.status == 403)
            #expect(response.bodySnippet.contains("<Code>AccessDenied</Code>"))
            #expect(response.bodySnippet.contains("Request has expired"))
        }
    }

    @Test("upload-url and analyze answer their documented 400s")
    func documentedClientErrors() async throws {
        try await TestSimulator.with { simulator in
            let badExtension = try await Self.http.send(.json(url: "\(simulator.baseURL)/upload-url", body: Data(#"{"file_extension": "gif"}"#.utf8)))
            #expect(badExtension.status == 400)
            #expect(badExtension.bodySnippet.contains("Invalid file extension. Allowed: jpg, jpeg, png, heic, heif"))

            let missing = try await Self.http.send(.json(url: "\(simulator.baseURL)/analyze", body: Data(#"{"image_key": "x"}"#.utf8)))
            #expect(missing.status == 400)
            #expect(missing.bodySnippet.contains("Missing required fields: image_key, bucket_name"))

            let absent = try await Self.http.send(
                .json(
                    url: "\(simulator.baseURL)/analyze",
                    body: Data(#"{"image_key": "uploads/none.jpg", "bucket_name": "discern-sim"}"#.utf8)))
            #expect(absent.status == 500, "a missing object surfaces as a failed execution, not a 404")
        }
    }

    @Test("analyze answers the same format 2.0 body for the same image")
    func deterministicAnalysis() async throws {
        let image = try SampleImages.photo(width: 320, height: 240, seed: 3)
        // Two analyses back to back: without the one-start-per-second limit, which is not the point here.
        var configuration = SimulatorConfiguration.unthrottled
        configuration.discernerResponseFormat = "2.0"
        try await TestSimulator.with(configuration) { simulator in
            var subjects: [String] = []
            for _ in 0..<2 {
                let grant = try await Self.grant(simulator)
                #expect(try await Self.put(grant.url, contentType: grant.contentType, body: image).status == 200)
                let key = try #require(URLComponents(string: grant.url)?.path.split(separator: "/", maxSplits: 1).last.map(String.init))
                let response = try await Self.http.send(
                    .json(
                        url: "\(simulator.baseURL)/analyze",
                        body: Data(#"{"image_key": "\#(key)", "bucket_name": "discern-sim"}"#.utf8)))
                #expect(response.status == 200)
                let top = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
                let body = try #require((top["analysis_result"] as? [String: Any])?["body"] as? [String: Any])
                let metadata = try #require(body["processing_metadata"] as? [String: Any])
                #expect(metadata["response_format_version"] as? String == "2.0")
                let subject = try #require(body["primary_subject"] as? [String: Any])
                subjects.append(String(decoding: try JSONSerialization.data(withJSONObject: subject, options: .sortedKeys), as: UTF8.self))
            }
            #expect(subjects[0] == subjects[1])
        }
    }
}

/// A clock the test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()
    var now: Date { lock.withLock { current } }
    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    /// Sets the time, for a moment that must follow a real one (a URL an outside signer dated).
    func set(_ date: Date) { lock.withLock { current = date } }
}
