import Foundation
import MediaFiles
import ObjectStorage

/// How `discern console` runs (docs/console.md).
public struct ConsoleConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8460
    /// Required to serve anyone but 127.0.0.1 itself: signs in as admin, and is what a reverse
    /// proxy sends.
    public var accessToken: String?
    /// Tokens that sign in as operator and as viewer, for people who reach the console without a
    /// proxy (docs/console.md, "Who may act").
    public var operatorToken: String?
    public var viewerToken: String?
    /// The proxy's users mapped to roles (`alice=admin,*=viewer`); nil: every user gets the
    /// role of the token the proxy sends.
    public var roleMap: RoleMap?
    /// A reverse proxy's user header (e.g. X-Forwarded-User): believed only on a request that
    /// also carries the access token, which the proxy adds (any process on the host can reach
    /// 127.0.0.1, so the address alone proves nothing).
    public var trustedUserHeader: String?
    /// Where people reach the console when it is not on their own machine
    /// (`https://discern.example.org/`): its host is served besides the loopback names, and an
    /// https URL makes session cookies `Secure`. TLS is the reverse proxy's (docs/console.md).
    public var publicURL: URL?
    /// Everyone a viewer: no actions at all; works with the discern_reader role.
    public var readOnly = false
    /// The review page lists results read with less confidence than this, fixed or measured.
    public var reviewBelow = ReviewThreshold.fixed(ReviewThreshold.fallback)
    /// Thumbnails are made only of files under these (the workers' rule).
    public var roots: PathRoots
    /// And of objects under the s3:// path roots, read as workers read them; nil: none.
    public var objects: ObjectReader?
    /// The services' names, for the results page's filter (from ServiceClients' registry: the
    /// console itself never imports ServiceClients).
    public var services: [String] = []

    public init(roots: PathRoots) {
        self.roots = roots
    }

    /// The Host names requests may carry: loopback names, the address listened on unless it is a
    /// wildcard, and the public URL's host. Anything else (a DNS-rebinding page's own name) is
    /// refused before access is even considered.
    public var allowedHosts: Set<String> {
        var hosts: Set<String> = ["127.0.0.1", "localhost", "::1", "[::1]"]
        if !["0.0.0.0", "::", "[::]", ""].contains(host) { hosts.insert(host.lowercased()) }
        if let name = publicURL?.host { hosts.insert(name.lowercased()) }
        return hosts
    }

    /// Session cookies say `Secure` when people reach the console over https.
    public var secureCookies: Bool { publicURL?.scheme?.lowercased() == "https" }

    /// The tokens with the role each signs in as.
    var tokens: [(String, ConsoleRole, String)] {
        [
            (accessToken, ConsoleRole.admin, "DISCERN_CONSOLE_TOKEN"), (operatorToken, .operator, "DISCERN_CONSOLE_OPERATOR_TOKEN"),
            (viewerToken, .viewer, "DISCERN_CONSOLE_VIEWER_TOKEN")
        ].compactMap { token, role, name in token.map { ($0, role, name) } }
    }

    /// Why this configuration must not start, or nil.
    public var problem: String? {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host)
        if !loopback && tokens.isEmpty {
            return "the console would listen on \(host) with no access control: set DISCERN_CONSOLE_TOKEN"
        }
        if trustedUserHeader != nil && accessToken == nil {
            return
                "--trusted-user-header needs DISCERN_CONSOLE_TOKEN, which the reverse proxy sends with every request (docs/console.md): any process on this machine could set the header"
        }
        if roleMap != nil && trustedUserHeader == nil {
            return
                "--roles maps the users a reverse proxy names: it needs --trusted-user-header (without a proxy, give people the operator or viewer token)"
        }
        for (token, _, name) in tokens where token.count < 16 { return "\(name) must be at least 16 characters" }
        if Set(tokens.map(\.0)).count < tokens.count { return "the console's tokens must differ: one token cannot sign in as two roles" }
        if let publicURL, publicURL.host == nil || !["http", "https"].contains(publicURL.scheme?.lowercased() ?? "") {
            return "--public-url must be an http or https URL with a host, e.g. https://discern.example.org/"
        }
        return nil
    }
}
