import Foundation
@testable import ObjectStorage
import Testing

/// Where bucket credentials come from: the AWS SDKs' default chain, in their order and with
/// their variables and files; nothing is fetched to choose.
@Suite("Bucket credentials: the default chain")
struct CredentialChainTests {
    static let sts = URL(string: "https://sts.eu-west-1.amazonaws.com")!

    static func source(
        _ variables: [String: String], config: String? = nil, credentials: String? = nil, secrets: [String: String] = [:]
    ) throws -> CredentialSource {
        let files = SharedConfigFiles(
            configPath: "/home/ops/.aws/config", configText: config, credentialsPath: "/home/ops/.aws/credentials", credentialsText: credentials)
        return try CredentialChain.source(variables, secret: { variables[$0] ?? secrets[$0] }, files: files, sts: sts)
    }

    @Test("keys in the environment come first; a secret from its 0600 file counts; a key without its secret is an error naming both")
    func environmentKeys() throws {
        let source = try Self.source(
            ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r"],
            secrets: ["AWS_SECRET_ACCESS_KEY": "from-the-file"])
        guard case .keys(let credentials, let origin) = source else { Issue.record("\(source)"); return }
        #expect(credentials.accessKeyID == "AKIAENV" && credentials.secretAccessKey == "from-the-file" && origin == "AWS_ACCESS_KEY_ID")
        let missing = #expect(throws: ObjectStorageError.self) { try Self.source(["AWS_ACCESS_KEY_ID": "AKIAENV"]) }
        #expect(missing?.message.contains("AWS_SECRET_ACCESS_KEY") == true && missing?.message.contains("AKIAENV") == true)
    }

    @Test(
        "IRSA's variables make web identity, with the session name given or the host's; a token file without a role is an error, a role without a token file is not web identity"
    )
    func webIdentityFromVariables() throws {
        let source = try Self.source([
            "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
            "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/discern-fleet", "AWS_ROLE_SESSION_NAME": "worker-7"
        ])
        guard case .webIdentity(let identity) = source else { Issue.record("\(source)"); return }
        #expect(identity.roleARN == "arn:aws:iam::123456789012:role/discern-fleet" && identity.sessionName == "worker-7" && identity.sts == Self.sts)
        #expect(identity.tokenFile == "/var/run/secrets/eks.amazonaws.com/serviceaccount/token")
        #expect(source.description.contains("role arn:aws:iam::123456789012:role/discern-fleet") && source.kind == "web-identity")
        guard case .webIdentity(let named) = try Self.source(["AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r"]) else {
            Issue.record("no web identity")
            return
        }
        #expect(named.sessionName.hasPrefix("discern-") && (2...64).contains(named.sessionName.count))
        #expect(throws: ObjectStorageError.self) { try Self.source(["AWS_WEB_IDENTITY_TOKEN_FILE": "/t"]) }
        #expect(try Self.source(["AWS_ROLE_ARN": "arn:aws:iam::1:role/r"]).kind == "instance-metadata", "a leftover role alone, as the SDKs read it")
        #expect(throws: ObjectStorageError.self) { try Self.source(["AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "discern-fleet"]) }
        #expect(throws: ObjectStorageError.self) {
            try Self.source(["AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r", "AWS_ROLE_SESSION_NAME": "a b"])
        }
    }

    static let config = """
        # the operator's config
        [default]
        region = eu-west-1
        [profile irsa]
        role_arn = arn:aws:iam::1:role/from-profile
        web_identity_token_file = /var/run/profile-token
        role_session_name = nightly
        [profile chained]
        role_arn = arn:aws:iam::1:role/other
        source_profile = default
        [profile sso]
        sso_session = corp
        [profile keyed]
        aws_access_key_id = AKIACONFIG
        aws_secret_access_key = config-secret
        s3 =
            addressing_style = path
        """
    static let credentials = """
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default-secret
        ; a comment
        [keyed]
        aws_access_key_id = AKIACREDS
        aws_secret_access_key = creds-secret
        aws_session_token = creds-token
        """

    @Test(
        "profiles: keys in the environment win over AWS_PROFILE (as botocore); the credentials file over the config file; a profile's web identity, each setting from its variable first; the default profile's keys"
    )
    func profiles() throws {
        let environment = try Self.source(
            ["AWS_PROFILE": "keyed", "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"], config: Self.config,
            credentials: Self.credentials)
        #expect(environment.description == "access key AKIAENV from AWS_ACCESS_KEY_ID")
        let keyed = try Self.source(["AWS_PROFILE": "keyed"], config: Self.config, credentials: Self.credentials)
        guard case .keys(let fromFile, let origin) = keyed else { Issue.record("\(keyed)"); return }
        #expect(
            fromFile.accessKeyID == "AKIACREDS" && fromFile.sessionToken == "creds-token" && origin == "profile keyed in /home/ops/.aws/credentials")
        guard case .webIdentity(let identity) = try Self.source(["AWS_PROFILE": "irsa"], config: Self.config) else {
            Issue.record("no web identity from the profile")
            return
        }
        #expect(
            identity.roleARN == "arn:aws:iam::1:role/from-profile" && identity.tokenFile == "/var/run/profile-token"
                && identity.sessionName == "nightly")
        guard
            case .webIdentity(let mixed) = try Self.source(
                ["AWS_PROFILE": "irsa", "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/rotated"], config: Self.config)
        else {
            Issue.record("no web identity from a variable and the profile")
            return
        }
        #expect(mixed.tokenFile == "/var/run/rotated" && mixed.roleARN == "arn:aws:iam::1:role/from-profile")
        guard case .keys(let defaults, _) = try Self.source([:], config: Self.config, credentials: Self.credentials) else {
            Issue.record("no default profile")
            return
        }
        #expect(defaults.accessKeyID == "AKIADEFAULT")
        let unknown = #expect(throws: ObjectStorageError.self) { try Self.source(["AWS_PROFILE": "nope"], config: Self.config) }
        #expect(unknown?.message.contains("nope") == true)
    }

    @Test("what a profile asks that discern does not do (source_profile, SSO) stops with one line rather than fall through to another source")
    func unsupportedProfiles() {
        for profile in ["chained", "sso"] {
            let error = #expect(throws: ObjectStorageError.self) { try Self.source(["AWS_PROFILE": profile], config: Self.config) }
            #expect(error?.message.contains("profile \(profile)") == true, "\(String(describing: error))")
        }
    }

    @Test(
        "the container endpoint: ECS's relative URI, Pod Identity's full URI and token file; plain http only to this host or the agents' link-local addresses"
    )
    func containerEndpoint() throws {
        guard case .container(let ecs) = try Self.source(["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc"]) else {
            Issue.record("no ECS endpoint")
            return
        }
        #expect(ecs.url.absoluteString == "http://169.254.170.2/v2/credentials/abc")
        let podIdentity = try Self.source([
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.23/v1/credentials",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": "/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token"
        ])
        #expect(podIdentity.kind == "container" && podIdentity.description.contains("eks-pod-identity-token"))
        for allowed in [
            "http://127.0.0.1:8080/creds", "http://[fd00:ec2::23]/v1/credentials", "https://creds.internal.example/x", "http://localhost/c"
        ] {
            #expect(throws: Never.self) { try Self.source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": allowed]) }
        }
        for refused in ["http://10.0.0.5/creds", "http://169.254.169.254/latest", "ftp://127.0.0.1/x", "not a url", "http://127.evil.example/c"] {
            #expect(throws: ObjectStorageError.self, "\(refused)") { try Self.source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": refused]) }
        }
        #expect(throws: ObjectStorageError.self) {
            try Self.source(["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1/c", "AWS_CONTAINER_AUTHORIZATION_TOKEN": "a\r\nX-Evil: 1"])
        }
    }

    @Test(
        "with nothing else set, the instance role through IMDSv2 (its endpoint variable, or IPv6 mode); AWS_EC2_METADATA_DISABLED=true leaves no source, named"
    )
    func instanceMetadata() throws {
        #expect(try Self.source([:]).description == "instance metadata (IMDSv2) at http://169.254.169.254")
        #expect(try Self.source(["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPv6"]).description.contains("[fd00:ec2::254]"))
        #expect(try Self.source(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1338"]).description.contains("127.0.0.1:1338"))
        let none = #expect(throws: ObjectStorageError.self) { try Self.source(["AWS_EC2_METADATA_DISABLED": "true"]) }
        #expect(none?.message.contains("AWS_WEB_IDENTITY_TOKEN_FILE") == true)
    }

    @Test(
        "the settings: region from AWS_REGION, else the profile's; STS at AWS_ENDPOINT_URL_STS or the region's; a CA bundle that cannot be read is an error"
    )
    func settings() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-aws-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(Self.config.utf8).write(to: folder.appendingPathComponent("config"))
        let base = [
            "HOME": folder.path, "AWS_CONFIG_FILE": folder.appendingPathComponent("config").path, "AWS_ACCESS_KEY_ID": "AKIA",
            "AWS_SECRET_ACCESS_KEY": "s"
        ]
        let fromProfile = try StoreSettings(base) { base[$0] }
        #expect(
            fromProfile.region == "eu-west-1" && fromProfile.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com"
                && fromProfile.endpointIsAWS)
        let irsa = base.merging([
            "AWS_ACCESS_KEY_ID": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r", "AWS_REGION": "ap-south-2"
        ]) { $1 }
        guard case .webIdentity(let identity) = try StoreSettings(irsa, secret: { irsa[$0] }).credentials else {
            Issue.record("no web identity")
            return
        }
        #expect(identity.sts.absoluteString == "https://sts.ap-south-2.amazonaws.com")
        let local = irsa.merging(["AWS_ENDPOINT_URL_STS": "http://127.0.0.1:9000"]) { $1 }
        guard case .webIdentity(let own) = try StoreSettings(local, secret: { local[$0] }).credentials else { return }
        #expect(own.sts.absoluteString == "http://127.0.0.1:9000")
        let badBundle = base.merging(["AWS_CA_BUNDLE": folder.appendingPathComponent("missing.pem").path]) { $1 }
        #expect(throws: ObjectStorageError.self) { try StoreSettings(badBundle) { badBundle[$0] } }
    }
}
