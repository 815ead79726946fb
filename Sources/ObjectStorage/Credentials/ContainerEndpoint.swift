import CurlHTTP
import Foundation

/// Credentials from an HTTP endpoint beside the workload: EKS Pod Identity's agent
/// (`AWS_CONTAINER_CREDENTIALS_FULL_URI` with `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`) or ECS's
/// (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`). The authorization token file is read anew for
/// every fetch, as it is rotated.
public struct ContainerEndpoint: Sendable, CustomStringConvertible {
    public let url: URL
    /// The Authorization header's value, or the file that holds it.
    let token: Token?

    enum Token: Sendable {
        case value(String)
        case file(String)
    }

    public var description: String {
        let authorization: String
        switch token {
        case .file(let path)?: authorization = ", authorization from \(path)"
        case .value?: authorization = ", authorization from AWS_CONTAINER_AUTHORIZATION_TOKEN"
        case nil: authorization = ""
        }
        return "container credentials endpoint \(url.absoluteString)\(authorization)"
    }

    /// The AWS SDKs' rule: plain http only to this host itself or to the link-local addresses
    /// the agents listen on; any other host over https.
    static func allows(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http":
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return bare == "localhost" || isLoopbackIPv4(bare) || bare == "::1"
                || ["169.254.170.2", "169.254.170.23", "fd00:ec2::23"].contains(bare)
        default: return false
        }
    }

    /// 127.0.0.0/8 written as an address (`127.evil.example` is a name, resolved anywhere).
    private static func isLoopbackIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }) else {
            return false
        }
        return parts[0] == "127"
    }

    func fetch(_ fetcher: CredentialFetcher) async throws(ObjectStorageError) -> AWSCredentials {
        var headers: [HTTPHeader] = [HTTPHeader("Accept", "application/json")]
        switch token {
        case .file(let path):
            let token = try await fetcher.read(path, what: "the container authorization token file")
            Redact.remember(secret: token, slot: "container-authorization")
            headers.append(HTTPHeader("Authorization", token))
        case .value(let value): headers.append(HTTPHeader("Authorization", value))
        case nil: break
        }
        let what = "the container credentials endpoint \(url.absoluteString)"
        let response = try await fetcher.send(
            HTTPRequest(method: "GET", url: url.absoluteString, headers: headers, timeoutSeconds: 5, maxResponseBytes: 64 << 10), what: what)
        guard (200..<300).contains(response.status) else {
            // The agent refusing the pod's token (4xx) is the setting's; its own failure is weather.
            throw ObjectStorageError(
                response.status >= 500 ? .unavailable : .refused, "\(what) answered HTTP \(response.status): \(response.bodySnippet)")
        }
        return try CredentialFetcher.credentials(response.body, from: what)
    }
}
