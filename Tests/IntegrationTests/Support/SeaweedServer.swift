import Foundation
import ObjectStorage
import Testing

/// A real S3 server for one test (SeaweedFS `weed mini`, scripts/seaweed.sh), SigV4 enforced
/// with a key pair of its own, stopped however the test ends. What the test does to it besides
/// discern goes through botocore (scripts/s3_tool.py), an independent signer.
struct SeaweedServer {
    let endpoint: String
    let accessKey: String
    let secretKey: String

    /// - Parameter issuer: an OIDC issuer's URL (`CredentialStandins`): its STS is on too, and
    ///   trusts tokens that issuer signs for `CredentialStandins.roleARN` (scripts/seaweed.sh).
    static func with<T>(issuer: String? = nil, _ body: (SeaweedServer) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-seaweed-\(UUID().uuidString.prefix(8))")
        let script = ChaosJobs.repository.appendingPathComponent("scripts/seaweed.sh").path
        let stop = {
            _ = try? await Subprocess.run("/bin/bash", [script, "stop", folder.path])
            try? FileManager.default.removeItem(at: folder)
        }
        do {
            let words = try await Subprocess.run("/bin/bash", [script, "start", folder.path] + (issuer.map { [$0] } ?? []))
                .split(whereSeparator: \.isWhitespace).suffix(3).map(String.init)
            guard words.count == 3 else { throw TestSetupError("scripts/seaweed.sh start printed no endpoint") }
            let value = try await body(SeaweedServer(endpoint: words[0], accessKey: words[1], secretKey: words[2]))
            await stop()
            return value
        } catch {
            await stop()
            throw error
        }
    }

    /// The variables a discern process reads the store from; `secret` to give it another.
    func environment(secret: String? = nil) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secret ?? secretKey, "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_S3": endpoint
        ]
    }

    /// scripts/s3_tool.py's command against this server; its output.
    @discardableResult
    func tool(_ arguments: [String]) async throws -> String {
        try await Subprocess.run(
            "/usr/bin/env",
            [
                "python3", ChaosJobs.repository.appendingPathComponent("scripts/s3_tool.py").path,
                "--endpoint", endpoint, "--key", accessKey, "--secret", secretKey
            ] + arguments)
    }

    /// discern's own client of this server.
    func store(secret: String? = nil) -> ObjectStore {
        ObjectStore(
            settings: StoreSettings(
                endpoint: URL(string: endpoint) ?? URL(fileURLWithPath: "/"), region: "us-east-1", addressing: .path,
                accessKeyID: accessKey, secretAccessKey: secret ?? secretKey))
    }
}
