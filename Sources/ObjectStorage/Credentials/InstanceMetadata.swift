import CurlHTTP
import Foundation

/// The instance role's credentials through IMDSv2: a session token first (PUT, with its
/// lifetime), then the role's name and its credentials with that token. IMDSv1 (no token) is
/// never used: an instance that requires v2 refuses it, and one that allows it should not.
public struct InstanceMetadata: Sendable, CustomStringConvertible {
    /// `AWS_EC2_METADATA_SERVICE_ENDPOINT`, or the link-local address.
    public let endpoint: URL

    public var description: String { "instance metadata (IMDSv2) at \(endpoint.absoluteString)" }

    func fetch(_ fetcher: CredentialFetcher) async throws(ObjectStorageError) -> AWSCredentials {
        let base = endpoint.absoluteString.hasSuffix("/") ? String(endpoint.absoluteString.dropLast()) : endpoint.absoluteString
        let what = description
        let tokenAnswer = try await fetcher.send(
            HTTPRequest(
                method: "PUT", url: "\(base)/latest/api/token", headers: [HTTPHeader("X-aws-ec2-metadata-token-ttl-seconds", "21600")],
                timeoutSeconds: 2, maxResponseBytes: 4096),
            what: what)
        guard tokenAnswer.status == 200, case let token = String(decoding: tokenAnswer.body, as: UTF8.self), !token.isEmpty else {
            throw ObjectStorageError(
                tokenAnswer.status >= 500 ? .unavailable : .refused,
                "\(what) gave no session token: HTTP \(tokenAnswer.status) \(tokenAnswer.bodySnippet)")
        }
        Redact.remember(secret: token, slot: "imds-token")
        let authorized = [HTTPHeader("X-aws-ec2-metadata-token", token)]
        let roles = try await fetcher.send(
            HTTPRequest(
                method: "GET", url: "\(base)/latest/meta-data/iam/security-credentials/", headers: authorized, timeoutSeconds: 2,
                maxResponseBytes: 4096),
            what: what)
        let role = String(decoding: roles.body, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard roles.status == 200, !role.isEmpty, role.allSatisfy({ $0.isLetter || $0.isNumber || "+=,.@_-".contains($0) }) else {
            throw ObjectStorageError(
                roles.status >= 500 ? .unavailable : .refused,
                "\(what) names no instance role (HTTP \(roles.status)): attach an instance profile with the bucket's policy")
        }
        let answer = try await fetcher.send(
            HTTPRequest(
                method: "GET", url: "\(base)/latest/meta-data/iam/security-credentials/\(role)", headers: authorized, timeoutSeconds: 2,
                maxResponseBytes: 64 << 10),
            what: what)
        guard answer.status == 200 else {
            throw ObjectStorageError(
                answer.status >= 500 ? .unavailable : .refused, "\(what) refused role \(role)'s credentials: HTTP \(answer.status)")
        }
        return try CredentialFetcher.credentials(answer.body, from: "\(what), role \(role)")
    }
}
