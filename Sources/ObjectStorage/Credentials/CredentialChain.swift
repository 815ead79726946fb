import CurlHTTP
import Foundation

/// Chooses where bucket credentials come from, in the AWS SDKs' order and with their variables
/// (docs/configuration.md, "Bucket credentials"): the first source that is configured is the
/// source, and nothing is fetched to choose it.
///
/// 1. `AWS_ACCESS_KEY_ID` with `AWS_SECRET_ACCESS_KEY` (or its 0600 file), even beside
///    `AWS_PROFILE`: keys in the environment win, as in botocore and the Go SDK (only a profile
///    named in code, not in the environment, passes them over).
/// 2. Web identity, when a token file is named: `AWS_WEB_IDENTITY_TOKEN_FILE`, `AWS_ROLE_ARN`
///    and `AWS_ROLE_SESSION_NAME`, each else the profile's `web_identity_token_file`,
///    `role_arn`, `role_session_name`. A role without a token file is not web identity.
/// 3. The profile's keys, from the credentials file, then the config file.
/// 4. The container endpoint: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` or `_FULL_URI`.
/// 5. The instance's role through IMDSv2, unless `AWS_EC2_METADATA_DISABLED=true`.
///
/// What a profile asks for that discern does not do (`source_profile`, `credential_source`,
/// `credential_process`, SSO) stops the command with one line rather than fall through to a
/// source the operator did not mean.
enum CredentialChain {
    static func source(
        _ variables: [String: String], secret: (String) throws -> String?, files: SharedConfigFiles, sts: URL
    ) throws(ObjectStorageError) -> CredentialSource {
        let value = variables.setting
        if let keyID = value("AWS_ACCESS_KEY_ID") {
            return .keys(try keys(keyID, secret: secret), from: "AWS_ACCESS_KEY_ID")
        }
        let explicitProfile = value("AWS_PROFILE") ?? value("AWS_DEFAULT_PROFILE")
        let profileName = explicitProfile ?? "default"
        let profile = files.profile(profileName)
        if explicitProfile != nil, profile == nil {
            throw ObjectStorageError(.invalid, "AWS_PROFILE=\(profileName) names no profile in \(files.configPath) or \(files.credentialsPath)")
        }
        if let profile,
            let unsupported = ["source_profile", "credential_source", "credential_process", "sso_session", "sso_start_url"].first(where: {
                profile[$0] != nil
            }), value("AWS_WEB_IDENTITY_TOKEN_FILE") == nil
        {
            throw ObjectStorageError(
                .invalid,
                "profile \(profileName) gets its credentials with \(unsupported), which discern does not do: use web identity "
                    + "(web_identity_token_file and role_arn), the container or instance role, or keys")
        }
        if let identity = try webIdentity(variables, profile: profile, profileName: profileName, sts: sts) {
            return .webIdentity(identity)
        }
        if let profile, let keyID = profile["aws_access_key_id"] {
            guard let secretKey = profile["aws_secret_access_key"], !secretKey.isEmpty else {
                throw ObjectStorageError(.invalid, "profile \(profileName) has aws_access_key_id \(keyID) but no aws_secret_access_key")
            }
            let origin = "profile \(profileName) in \(files.origin(of: profileName, key: "aws_access_key_id"))"
            return .keys(AWSCredentials(accessKeyID: keyID, secretAccessKey: secretKey, sessionToken: profile["aws_session_token"]), from: origin)
        }
        if let endpoint = try container(variables) { return .container(endpoint) }
        if value("AWS_EC2_METADATA_DISABLED")?.lowercased() == "true" {
            throw ObjectStorageError(
                .invalid,
                "no bucket credentials: none of AWS_ACCESS_KEY_ID, AWS_WEB_IDENTITY_TOKEN_FILE, a profile with keys or AWS_CONTAINER_CREDENTIALS_*_URI "
                    + "is set, and AWS_EC2_METADATA_DISABLED=true turns the instance role off (docs/configuration.md, \"Bucket credentials\")")
        }
        return .instanceMetadata(InstanceMetadata(endpoint: try metadataEndpoint(variables)))
    }

    private static func keys(_ keyID: String, secret: (String) throws -> String?) throws(ObjectStorageError) -> AWSCredentials {
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
        return AWSCredentials(accessKeyID: keyID, secretAccessKey: secretKey, sessionToken: token.flatMap { $0.isEmpty ? nil : $0 })
    }

    private static func webIdentity(
        _ variables: [String: String], profile: [String: String]?, profileName: String, sts: URL
    ) throws(ObjectStorageError) -> WebIdentity? {
        // Each setting from its variable, else from the profile, as botocore reads them.
        func setting(_ variable: String, _ key: String) -> (value: String, from: String)? {
            if let given = variables.setting(variable) { return (given, variable) }
            return profile?[key].flatMap { $0.isEmpty ? nil : ($0, "profile \(profileName)'s \(key)") }
        }
        guard let tokenFile = setting("AWS_WEB_IDENTITY_TOKEN_FILE", "web_identity_token_file") else { return nil }
        guard let role = setting("AWS_ROLE_ARN", "role_arn") else {
            throw ObjectStorageError(
                .invalid, "\(tokenFile.from) names a web identity token, and no role is given: set AWS_ROLE_ARN (IRSA's annotation sets both)")
        }
        guard role.value.hasPrefix("arn:"), role.value.count <= 2048 else {
            throw ObjectStorageError(.invalid, "\(role.from)=\(role.value.prefix(80)) is not a role ARN")
        }
        let sessionName = setting("AWS_ROLE_SESSION_NAME", "role_session_name")?.value ?? defaultSessionName()
        guard (2...64).contains(sessionName.count), sessionName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_+=,.@-".contains($0)) })
        else {
            throw ObjectStorageError(.invalid, "the role session name \(sessionName.prefix(80)) must be 2-64 letters, digits or _+=,.@-")
        }
        return WebIdentity(roleARN: role.value, tokenFile: tokenFile.value, sessionName: sessionName, sts: sts, origin: tokenFile.from)
    }

    /// `discern-<host>`, cut to STS's 64 characters: CloudTrail then says which worker asked.
    static func defaultSessionName() -> String {
        let host = ProcessInfo.processInfo.hostName.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) }
        return String("discern-\(host.isEmpty ? "worker" : host)".prefix(64))
    }

    private static func container(_ variables: [String: String]) throws(ObjectStorageError) -> ContainerEndpoint? {
        let value = variables.setting
        let url: URL
        if let relative = value("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            guard relative.hasPrefix("/"), let made = URL(string: "http://169.254.170.2\(relative)") else {
                throw ObjectStorageError(.invalid, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=\(relative.prefix(80)) must be a path starting with /")
            }
            url = made
        } else if let full = value("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            guard let made = URL(string: full), made.host != nil else {
                throw ObjectStorageError(.invalid, "AWS_CONTAINER_CREDENTIALS_FULL_URI=\(full.prefix(80)) is not a URL")
            }
            guard ContainerEndpoint.allows(made) else {
                throw ObjectStorageError(
                    .invalid,
                    "AWS_CONTAINER_CREDENTIALS_FULL_URI=\(full.prefix(80)) must be https, or http to this host or the agents' link-local addresses")
            }
            url = made
        } else {
            return nil
        }
        let token: ContainerEndpoint.Token? =
            value("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").map { .file($0) } ?? value("AWS_CONTAINER_AUTHORIZATION_TOKEN").map { .value($0) }
        if case .value(let text)? = token {
            guard !text.utf8.contains(where: { $0 == 13 || $0 == 10 }) else {
                throw ObjectStorageError(.invalid, "AWS_CONTAINER_AUTHORIZATION_TOKEN holds a line break")
            }
            Redact.remember(secret: text)
        }
        return ContainerEndpoint(url: url, token: token)
    }

    private static func metadataEndpoint(_ variables: [String: String]) throws(ObjectStorageError) -> URL {
        let value = variables.setting
        if let given = value("AWS_EC2_METADATA_SERVICE_ENDPOINT") {
            guard let url = URL(string: given), url.host != nil, ["http", "https"].contains(url.scheme ?? "") else {
                throw ObjectStorageError(.invalid, "AWS_EC2_METADATA_SERVICE_ENDPOINT=\(given.prefix(80)) is not an http(s) URL")
            }
            return url
        }
        let ipv6 = value("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE")?.lowercased() == "ipv6"
        return URL(string: ipv6 ? "http://[fd00:ec2::254]" : "http://169.254.169.254") ?? URL(fileURLWithPath: "/")
    }
}

extension [String: String] {
    /// A variable's value; nil when it is not set or empty (an empty AWS_* variable is unset to
    /// the AWS tools too).
    func setting(_ name: String) -> String? { self[name].flatMap { $0.isEmpty ? nil : $0 } }
}
