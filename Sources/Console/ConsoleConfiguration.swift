import Imaging

/// How `discern console` runs (docs/console.md).
public struct ConsoleConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8460
    /// Required to serve anyone but 127.0.0.1 (unless a trusted proxy header is set).
    public var accessToken: String?
    /// A reverse proxy's user header (e.g. X-Forwarded-User), believed only from 127.0.0.1.
    public var trustedUserHeader: String?
    /// No actions at all; works with the discern_reader role.
    public var readOnly = false
    /// The review page lists results read with less confidence than this.
    public var reviewBelow = 0.8
    /// Thumbnails are made only of files under these (the workers' rule).
    public var roots: PathRoots

    public init(roots: PathRoots) {
        self.roots = roots
    }

    /// Why this configuration must not start, or nil.
    public var problem: String? {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host)
        if !loopback && accessToken == nil && trustedUserHeader == nil {
            return "the console would listen on \(host) with no access control: set DISCERN_CONSOLE_TOKEN (or --trusted-user-header behind a reverse proxy on this machine)"
        }
        if let token = accessToken, token.count < 16 { return "DISCERN_CONSOLE_TOKEN must be at least 16 characters" }
        guard (0...1).contains(reviewBelow) else { return "--review-below must be from 0 to 1" }
        return nil
    }
}
