import Foundation

/// Where a process's bucket credentials come from: the first of the AWS SDKs' default chain
/// that is configured (`CredentialChain`). Its description names the source and what it reads
/// (a variable, a file, an endpoint, a role), never a secret.
public enum CredentialSource: Sendable, CustomStringConvertible {
    /// A long-lived key: `AWS_ACCESS_KEY_ID` and its secret, or a profile's.
    case keys(AWSCredentials, from: String)
    /// A token file exchanged at STS for a role's credentials (IRSA; a profile's
    /// `web_identity_token_file`).
    case webIdentity(WebIdentity)
    /// An HTTP endpoint beside the workload (EKS Pod Identity's agent, ECS).
    case container(ContainerEndpoint)
    /// The instance's role, through IMDSv2 (EC2).
    case instanceMetadata(InstanceMetadata)

    /// One word for the source, for metrics and JSON.
    public var kind: String {
        switch self {
        case .keys: return "keys"
        case .webIdentity: return "web-identity"
        case .container: return "container"
        case .instanceMetadata: return "instance-metadata"
        }
    }

    public var description: String {
        switch self {
        case .keys(let credentials, let origin): return "access key \(credentials.accessKeyID) from \(origin)"
        case .webIdentity(let identity): return identity.description
        case .container(let endpoint): return endpoint.description
        case .instanceMetadata(let metadata): return metadata.description
        }
    }

    /// Whether the credentials run out and are fetched again.
    var isRefreshed: Bool {
        if case .keys = self { return false }
        return true
    }
}
