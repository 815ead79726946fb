import Foundation
import Testing

/// What AWS and Kubernetes hand a workload its credentials with, as one process on loopback
/// (scripts/aws-standins.py): an OIDC issuer that writes a service-account token to a file as
/// the kubelet projects one, IMDSv2 and the container credentials endpoint (EKS Pod Identity).
/// The credentials the endpoints hand out are minted by SeaweedFS's real STS, for the role
/// scripts/seaweed.sh sets up; the S3 server judges them.
final class CredentialStandins: Sendable {
    static let roleARN = "arn:aws:iam::000000000000:role/discern-fleet"

    private let server: ScriptServer
    let tokenFile: URL
    let authToken: String
    var url: String { "http://127.0.0.1:\(server.port)" }

    private init(server: ScriptServer, tokenFile: URL, authToken: String) {
        (self.server, self.tokenFile, self.authToken) = (server, tokenFile, authToken)
    }

    static func start(in folder: URL) async throws -> CredentialStandins {
        let tokenFile = folder.appendingPathComponent("service-account-token")
        let authToken = "pod-identity-\(UUID().uuidString)"
        let server = try ScriptServer(
            folder: folder, script: "aws-standins.py",
            arguments: ["--token-file", tokenFile.path, "--auth-token", authToken, "--role-arn", roleARN])
        try await server.start()
        return CredentialStandins(server: server, tokenFile: tokenFile, authToken: authToken)
    }

    func stop() async { await server.stop() }

    /// Changes how the endpoints behave (`refuse`, `stated_lifetime`, `duration`, `sts`).
    func control(_ settings: [String: Any]) async throws { try await server.post("/control", settings) }

    struct Stats: Decodable {
        let imds: Int
        let container: Int
        let tokens: Int
        let minted: Int
        /// When each credential was handed out, and the expiry it stated (Unix seconds).
        let handed: [[Double]]
    }

    /// What was asked of them.
    func stats() async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: Data(await RawHTTP.get(port: server.port, path: "/control/stats").body.utf8))
    }

    /// A discern process's variables with none of the long-lived key's, and no shared files.
    static func withoutKeys(_ folder: URL) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
            "AWS_CONFIG_FILE": folder.appendingPathComponent("no-aws-config").path,
            "AWS_SHARED_CREDENTIALS_FILE": folder.appendingPathComponent("no-aws-credentials").path,
            "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_EC2_METADATA_DISABLED": "", "AWS_REGION": "us-east-1"
        ]
    }
}

/// scripts/s3-front.py: a double in front of SeaweedFS that answers what AWS S3 answers where
/// SeaweedFS does not (ExpiredToken, InvalidObjectState, region redirects, SlowDown, keys it
/// cannot hold), and forwards everything else as it came, for SeaweedFS to judge.
final class S3Front: Sendable {
    private let server: ScriptServer
    let scheme: String
    var url: String { "\(scheme)://127.0.0.1:\(server.port)" }

    private init(server: ScriptServer, scheme: String) {
        (self.server, self.scheme) = (server, scheme)
    }

    /// - Parameter certificate: a PEM certificate and key to serve https with.
    static func start(upstream: String, in folder: URL, certificate: (cert: String, key: String)? = nil) async throws -> S3Front {
        let tls = certificate.map { ["--cert", $0.cert, "--key", $0.key] } ?? []
        // botocore checks the signatures of the objects it holds: the interpreter pip installed it for.
        let server = try ScriptServer(folder: folder, script: "s3-front.py", python: try Python.onPath(), arguments: ["--upstream", upstream] + tls)
        try await server.start()
        return S3Front(server: server, scheme: certificate == nil ? "http" : "https")
    }

    func stop() async { await server.stop() }

    /// A front for `body`, stopped however it ends.
    static func with<T>(
        upstream: String, in folder: URL, certificate: (cert: String, key: String)? = nil, _ body: (S3Front) async throws -> T
    ) async throws -> T {
        let front = try await start(upstream: upstream, in: folder, certificate: certificate)
        do {
            let value = try await body(front)
            await front.stop()
            return value
        } catch {
            await front.stop()
            throw error
        }
    }

    /// What it answers from now on (`archived`, `expire`, `regions`, `weather`, `local`, ...).
    func control(_ settings: [String: Any]) async throws { try await server.post("/__front/control", settings) }

    struct Stats: Decodable {
        let requests: Int
        let statuses: [String: Int]
        let expired: Int
        let redirected: Int
        let archived: Int
        let weather: Int
        let local_gets: [String: Int]
        let paths: [String]
    }

    func stats() async throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: Data(await RawHTTP.get(port: server.port, path: "/__front/stats").body.utf8))
    }
}

enum Python {
    /// The `python3` the PATH finds: the one scripts/install-deps.sh installed botocore for.
    static func onPath() throws -> String {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(folder)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestSetupError("no python3 on PATH")
    }
}
