import CurlHTTP
import Foundation

/// A role's credentials for a token the platform writes to a file (IRSA: the kubelet projects a
/// service-account token and rotates it), exchanged at STS with AssumeRoleWithWebIdentity. The
/// request is not signed: the token is the proof. The file is read anew for every exchange.
public struct WebIdentity: Sendable, CustomStringConvertible {
    public let roleARN: String
    public let tokenFile: String
    public let sessionName: String
    public let sts: URL
    /// What named it: the variables, or a profile.
    public let origin: String

    public var description: String {
        "web identity: role \(roleARN), token \(tokenFile), STS \(sts.absoluteString) (\(origin))"
    }

    func fetch(_ fetcher: CredentialFetcher) async throws(ObjectStorageError) -> AWSCredentials {
        let token = try await fetcher.read(tokenFile, what: "the web identity token file")
        Redact.remember(secret: token, slot: "web-identity-token")
        let form = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleARN), ("RoleSessionName", sessionName),
            ("WebIdentityToken", token)
        ].map { "\(RequestSigner.encode($0.0))=\(RequestSigner.encode($0.1))" }.joined(separator: "&")
        let what = "STS at \(sts.host ?? sts.absoluteString) (AssumeRoleWithWebIdentity for \(roleARN))"
        let response = try await fetcher.send(
            HTTPRequest(
                method: "POST", url: sts.absoluteString, headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                body: .bytes(Data(form.utf8)), timeoutSeconds: 20, maxResponseBytes: 256 << 10),
            what: what)
        let reader = ElementReader(
            wanted: ["AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration", "Code", "Message"], grouping: nil, anyDepth: true)
        let readable = reader.read(response.body)
        guard (200..<300).contains(response.status) else {
            let code = readable ? reader.top["Code"] : nil
            let said = code.map { "\($0): \(reader.top["Message"] ?? "")" } ?? "HTTP \(response.status) \(response.bodySnippet)"
            // A refused token or role is the setting's to fix; throttling, the identity
            // provider away or the STS failing are weather.
            let weather = response.status >= 500 || ["Throttling", "IDPCommunicationError", "ServiceUnavailable"].contains(code ?? "")
            throw ObjectStorageError(weather ? .unavailable : .refused, "\(what) answered \(said)", storeCode: code)
        }
        guard readable, let keyID = reader.top["AccessKeyId"], AWSCredentials.isKeyID(keyID), let secret = reader.top["SecretAccessKey"],
            let session = reader.top["SessionToken"],
            let expiration = reader.top["Expiration"].flatMap(CredentialFetcher.instant)
        else {
            // Not a word of it is repeated: a document that failed to parse may still hold a secret.
            throw ObjectStorageError(.unavailable, "\(what) answered \(response.body.count) bytes without credentials it could read")
        }
        return AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: session, expiration: expiration)
    }
}
