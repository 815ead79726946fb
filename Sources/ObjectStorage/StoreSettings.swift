import CurlHTTP
import Foundation

/// Where the S3-compatible store is, how to reach it and where its credentials come from, from
/// the variables and files every AWS tool reads (docs/configuration.md, "Photos in S3"):
/// `AWS_REGION` (or `AWS_DEFAULT_REGION`, the profile's `region`; us-east-1),
/// `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL`; AWS's endpoint for the region otherwise),
/// `AWS_CA_BUNDLE` (or the profile's `ca_bundle`) to trust a private CA, and the credential
/// chain (`CredentialChain`). Buckets are addressed by path (`endpoint/bucket/key`) on an
/// endpoint of one's own (what S3-compatible servers take without a wildcard DNS name) and by
/// host (`bucket.endpoint/key`) on AWS, but for a bucket whose name has a dot, which no
/// wildcard certificate covers; `DISCERN_S3_ADDRESSING=path|virtual` says otherwise.
public struct StoreSettings: Sendable {
    public enum Addressing: String, Sendable { case path, virtual }

    public let endpoint: URL
    /// No endpoint was given: AWS's own, whose host names the region (a bucket found in another
    /// region is then asked at that region's endpoint).
    public let endpointIsAWS: Bool
    public let region: String
    public let addressing: Addressing
    /// A PEM file of the CAs to trust instead of the system's.
    public let caBundle: String?
    public let credentials: CredentialSource

    /// - Parameter secret: the value of a secret variable, from the environment or its file.
    public init(_ variables: [String: String], secret: (String) throws -> String?) throws(ObjectStorageError) {
        let value = variables.setting
        let files = SharedConfigFiles.load(variables)
        let profile = files.profile(value("AWS_PROFILE") ?? value("AWS_DEFAULT_PROFILE") ?? "default") ?? [:]
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? profile["region"] ?? "us-east-1"
        guard StoreAnswers.regionName(region) == region else {
            throw ObjectStorageError(.invalid, "AWS_REGION=\(region.prefix(40)) is not a region name")
        }
        let configured = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        let endpoint = try Self.url(configured ?? "https://s3.\(region).amazonaws.com", named: "AWS_ENDPOINT_URL_S3")
        let sts = try Self.url(
            value("AWS_ENDPOINT_URL_STS") ?? value("AWS_ENDPOINT_URL") ?? "https://sts.\(region).amazonaws.com", named: "AWS_ENDPOINT_URL_STS")
        let addressing: Addressing
        if let chosen = value("DISCERN_S3_ADDRESSING") {
            guard let parsed = Addressing(rawValue: chosen) else {
                throw ObjectStorageError(.invalid, "DISCERN_S3_ADDRESSING=\(chosen) must be path or virtual")
            }
            addressing = parsed
        } else {
            addressing = configured == nil ? .virtual : .path
        }
        let caBundle = value("AWS_CA_BUNDLE") ?? profile["ca_bundle"]
        if let caBundle, !FileManager.default.isReadableFile(atPath: caBundle) {
            throw ObjectStorageError(.invalid, "AWS_CA_BUNDLE=\(caBundle) is not a file this process can read")
        }
        self.init(
            endpoint: endpoint, region: region, addressing: addressing,
            credentials: try CredentialChain.source(variables, secret: secret, files: files, sts: sts),
            caBundle: caBundle, endpointIsAWS: configured == nil)
    }

    public init(
        endpoint: URL, region: String, addressing: Addressing, credentials: CredentialSource, caBundle: String? = nil, endpointIsAWS: Bool = false
    ) {
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.credentials = credentials
        self.caBundle = caBundle
        self.endpointIsAWS = endpointIsAWS
    }

    /// A long-lived key pair, as the tests and a store of one's own use.
    public init(endpoint: URL, region: String, addressing: Addressing, accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.init(
            endpoint: endpoint, region: region, addressing: addressing,
            credentials: .keys(
                AWSCredentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken), from: "the settings"))
    }

    private static func url(_ text: String, named name: String) throws(ObjectStorageError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil, url.query == nil else {
            throw ObjectStorageError(.invalid, "\(name)=\(text.prefix(200)) is not an http(s) URL")
        }
        return url
    }
}
