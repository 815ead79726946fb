import CurlHTTP
import Foundation
import Simulator
import TestFixtures
import Testing

/// The simulator's SigV4 verifier against URLs from an independent signer: botocore.
@Suite("Simulator: botocore cross-check", .integrationTimeLimit)
struct BotocoreCrossCheckTests {
    static let presignScript = """
        import sys
        import botocore.session
        from botocore.config import Config
        endpoint, key, secret, bucket, object_key, content_type, expires = sys.argv[1:8]
        session = botocore.session.get_session()
        client = session.create_client("s3", endpoint_url=endpoint, aws_access_key_id=key,
            aws_secret_access_key=secret, region_name="us-east-1",
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
        print(client.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": object_key,
            "ContentType": content_type, "ServerSideEncryption": "AES256"}, ExpiresIn=int(expires)))
        """

    static func botocoreURL(
        _ simulator: RunningSimulator, _ configuration: SimulatorConfiguration,
        key: String, contentType: String = "image/jpg", expires: Int = 900
    ) async throws -> String {
        let output = try await Subprocess.run(
            "/usr/bin/env",
            [
                "python3", "-c", presignScript, simulator.baseURL, configuration.accessKeyID, configuration.secretAccessKey,
                configuration.bucket, key, contentType, String(expires)
            ])
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("URLs presigned by botocore are accepted, and refused once tampered with or expired")
    func botocoreURLs() async throws {
        let clock = TestClock()
        let configuration = SimulatorConfiguration(secretAccessKey: "cross-check-secret/with+odd=chars", clock: { clock.now })
        try await TestSimulator.with(configuration) { simulator in
            let url = try await Self.botocoreURL(simulator, configuration, key: "uploads/20261122-010203-abcdef12.jpg")
            #expect(url.contains("X-Amz-SignedHeaders=content-type%3Bhost%3Bx-amz-server-side-encryption"))
            #expect(try await PresignedUploadTests.put(url, contentType: "image/jpg").status == 200)

            let spaced = try await Self.botocoreURL(simulator, configuration, key: "uploads/night 1/ü photo.jpg")
            #expect(try await PresignedUploadTests.put(spaced, contentType: "image/jpg").status == 200)

            #expect(try await PresignedUploadTests.put(url, contentType: "image/png").status == 403)
            let tampered = url.replacingOccurrences(of: "X-Amz-Expires=900", with: "X-Amz-Expires=901")
            #expect(try await PresignedUploadTests.put(tampered, contentType: "image/jpg").status == 403)

            let shortLived = try await Self.botocoreURL(simulator, configuration, key: "uploads/short.jpg", expires: 5)
            // botocore dates the URL by the real clock, however long its start took on a busy
            // machine: a minute after that moment, wherever the simulator's clock was.
            clock.set(Date().addingTimeInterval(60))
            let expired = try await PresignedUploadTests.put(shortLived, contentType: "image/jpg")
            #expect(expired.status == 403)
            #expect(expired.bodySnippet.contains("Request has expired"))
        }
    }

    @Test("a URL signed with another secret is refused")
    func otherSecret() async throws {
        let configuration = SimulatorConfiguration()
        try await TestSimulator.with(configuration) { simulator in
            var forged = configuration
            forged.secretAccessKey = "not-the-secret"
            let url = try await Self.botocoreURL(simulator, forged, key: "uploads/forged.jpg")
            let response = try await PresignedUploadTests.put(url, contentType: "image/jpg")
            #expect(response.status == 403)
            #expect(response.bodySnippet.contains("SignatureDoesNotMatch"))
        }
    }
}
