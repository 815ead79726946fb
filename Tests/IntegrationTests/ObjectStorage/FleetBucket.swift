import Foundation
import Postgres
import Simulator
import TestFixtures
import Testing

/// A night of a fleet's photos in a bucket of a real S3 server (SeaweedFS) whose STS hands out
/// the only credentials that may read it, beside the stand-ins that hand those credentials to a
/// workload as EKS and EC2 do (`CredentialStandins`), a database, and a folder for the test's
/// files: everything a test of bucket credentials starts from, stopped however it ends.
struct FleetBucket {
    let s3: SeaweedServer
    let standins: CredentialStandins
    let conninfo: String
    let folder: URL

    static let roots = "s3://fleet/night/"

    /// Where a process's credentials come from, as a workload is given them.
    enum Source: CustomStringConvertible, Sendable {
        /// IRSA: a projected token file and the role's ARN.
        case webIdentity(tokenFile: String? = nil)
        /// EC2: the instance's role through IMDSv2.
        case instanceMetadata
        /// EKS Pod Identity: the agent's endpoint and the pod's token file.
        case podIdentity

        var description: String {
            switch self {
            case .webIdentity: return "web identity"
            case .instanceMetadata: return "IMDSv2"
            case .podIdentity: return "Pod Identity"
            }
        }
    }

    static func with(photos: Int, _ body: (FleetBucket) async throws -> Void) async throws {
        try await TestFolder.with { folder in
            let standins = try await CredentialStandins.start(in: folder)
            do {
                try await SeaweedServer.with(issuer: standins.url) { s3 in
                    try await standins.control(["sts": s3.endpoint])
                    try await TestDatabase.with { conninfo in
                        if photos > 0 { try await BucketTests.upload(photos, to: s3, prefix: "night/", folder: folder) }
                        try await body(FleetBucket(s3: s3, standins: standins, conninfo: conninfo, folder: folder))
                    }
                }
                await standins.stop()
            } catch {
                await standins.stop()
                throw error
            }
        }
    }

    /// A discern process's variables: no long-lived key anywhere, the credentials from `source`,
    /// the store at `endpoint` (SeaweedFS itself by default) and its STS.
    func environment(_ source: Source, endpoint: String? = nil) -> [String: String] {
        var variables = CredentialStandins.withoutKeys(folder).merging([
            "AWS_ENDPOINT_URL_S3": endpoint ?? s3.endpoint, "AWS_ENDPOINT_URL_STS": s3.endpoint, "DISCERN_PATH_ROOTS": Self.roots,
            // The role's session is named after the host; a test's is its own.
            "AWS_ROLE_SESSION_NAME": "discern-test"
        ]) { $1 }
        switch source {
        case .webIdentity(let tokenFile):
            variables["AWS_WEB_IDENTITY_TOKEN_FILE"] = tokenFile ?? standins.tokenFile.path
            variables["AWS_ROLE_ARN"] = CredentialStandins.roleARN
        case .instanceMetadata:
            variables["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = standins.url
        case .podIdentity:
            let tokenFile = folder.appendingPathComponent("eks-pod-identity-token")
            try? Data(standins.authToken.utf8).write(to: tokenFile)
            variables["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "\(standins.url)/v1/credentials"
            variables["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = tokenFile.path
        }
        return variables
    }

    /// `discern enqueue s3://fleet/night/` with those variables.
    func enqueue(_ environment: [String: String], _ extra: [String] = []) async throws -> (status: Int32, output: String) {
        try await BucketTests.discern(["enqueue", Self.roots, "--database-url", conninfo] + extra, environment)
    }

    /// Workers draining the queue with those variables, each with a temporary folder of its own;
    /// their exit statuses.
    func drain(_ environment: [String: String], workers: Int = 1, simulator: RunningSimulator, arguments: [String] = []) throws -> [WorkerProcess] {
        try (0..<workers).map { index in
            let own = folder.appendingPathComponent("worker-\(UUID().uuidString.prefix(6))-\(index)")
            try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
            return try WorkerProcess(
                conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder, arguments: ["--drain", "--path-root", Self.roots] + arguments,
                environment: environment.merging(["TMPDIR": own.path]) { $1 })
        }
    }

    /// The jobs by path: state, error kind, last error.
    func outcomes() async throws -> [String: (state: String, kind: String, error: String)] {
        let rows = try await Database(conninfo: conninfo).rows(
            "SELECT image_path, state, coalesce(error_kind, '-') AS kind, coalesce(last_error, '') AS error FROM discern.jobs",
            as: String.self, String.self, String.self, String.self)
        return Dictionary(
            rows.map { path, state, kind, error in (path, (state, kind, error)) },
            uniquingKeysWith: { first, _ in first })
    }
}
