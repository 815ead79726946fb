import CurlHTTP
import Foundation
import Simulator
import Testing

/// The simulator's SigV4 verifier against URLs from an independent signer: botocore.
@Suite("Simulator: botocore cross-check")
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

    static func botocoreURL(_ simulator: RunningSimulator, _ configuration: SimulatorConfiguration,
                            key: String, contentType: String = "image/jpg", expires: Int = 900) async throws -> String {
        let output = try await Subprocess.run("/usr/bin/env", [
            "python3", "-c", presignScript, simulator.baseURL, configuration.accessKeyID, configuration.secretAccessKey,
            configuration.bucket, key, contentType, String(expires),
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
            clock.advance(by: 60)
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

/// Runs a program to completion and returns its standard output. It waits with waitpid on a
/// thread of its own (never a cooperative one), and collects output through a file, so a
/// daemon the program leaves behind (pg_ctl's server) cannot hold the call open.
enum Subprocess {
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("discern-subprocess-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try spawnAndWait(executable, arguments, output: output.path) })
            }
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw TestSetupError("\(arguments.prefix(2).joined(separator: " ")) exited \(status): \(text.suffix(2000))")
        }
        return text
    }

    private static func spawnAndWait(_ executable: String, _ arguments: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestSetupError("cannot start \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift cannot import as macros.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
