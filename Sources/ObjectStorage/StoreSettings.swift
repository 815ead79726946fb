import CurlHTTP
import Foundation

/// Where the S3-compatible store is and how to sign for it, from the variables every AWS tool
/// reads: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (or a 0600 file of that name in the
/// credentials folder: the caller resolves secrets), `AWS_SESSION_TOKEN`, `AWS_REGION` (or
/// `AWS_DEFAULT_REGION`; us-east-1), `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL`; AWS's own
/// endpoint for the region otherwise). Buckets are addressed by path (`endpoint/bucket/key`) on
/// an endpoint of one's own (what S3-compatible servers take without a wildcard DNS name) and by
/// host (`bucket.endpoint/key`) on AWS; `DISCERN_S3_ADDRESSING=path|virtual` says otherwise.
public struct StoreSettings: Sendable {
    public enum Addressing: String, Sendable { case path, virtual }

    public let endpoint: URL
    public let region: String
    public let addressing: Addressing
    public let accessKeyID: String
    let secretAccessKey: String
    let sessionToken: String?

    /// - Parameter secret: the value of a secret variable, from the environment or its file.
    public init(_ variables: [String: String], secret: (String) throws -> String?) throws(ObjectStorageError) {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let keyID = value("AWS_ACCESS_KEY_ID") else {
            throw ObjectStorageError(
                .invalid, "reading s3:// photos needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (docs/configuration.md, \"Photos in S3\")")
        }
        let secretKey: String?, token: String?
        do {
            (secretKey, token) = (try secret("AWS_SECRET_ACCESS_KEY"), try secret("AWS_SESSION_TOKEN"))
        } catch {
            throw ObjectStorageError(.invalid, "\(error)")
        }
        guard let secretKey, !secretKey.isEmpty else {
            throw ObjectStorageError(
                .invalid,
                "AWS_ACCESS_KEY_ID \(keyID) has no AWS_SECRET_ACCESS_KEY: set it, or put it in a file named AWS_SECRET_ACCESS_KEY in $DISCERN_CREDENTIALS_DIR"
            )
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        guard region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw ObjectStorageError(.invalid, "AWS_REGION=\(region) is not a region name")
        }
        let configured = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        guard let endpoint = URL(string: configured ?? "https://s3.\(region).amazonaws.com"), let scheme = endpoint.scheme,
            ["http", "https"].contains(scheme), endpoint.host != nil, endpoint.query == nil
        else {
            throw ObjectStorageError(.invalid, "AWS_ENDPOINT_URL_S3=\(configured ?? "") is not an http(s) URL")
        }
        let addressing: Addressing
        if let chosen = value("DISCERN_S3_ADDRESSING") {
            guard let parsed = Addressing(rawValue: chosen) else {
                throw ObjectStorageError(.invalid, "DISCERN_S3_ADDRESSING=\(chosen) must be path or virtual")
            }
            addressing = parsed
        } else {
            addressing = configured == nil ? .virtual : .path
        }
        self.init(
            endpoint: endpoint, region: region, addressing: addressing, accessKeyID: keyID, secretAccessKey: secretKey,
            sessionToken: token)
    }

    public init(endpoint: URL, region: String, addressing: Addressing, accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        // Should a store echo them back, messages made of its answers mask them.
        Redact.remember(secret: secretAccessKey)
        if let sessionToken { Redact.remember(secret: sessionToken) }
    }

    /// Whether any S3 variable is set: a worker without them reads no s3:// photo.
    public static func isConfigured(_ variables: [String: String]) -> Bool {
        variables["AWS_ACCESS_KEY_ID"].map { !$0.isEmpty } ?? false
    }
}
