import Crypto
import Foundation

/// The console's secrets: the access tokens, each signing in as a role (compared in constant
/// time), the sessions the sign-in page hands out, and the CSRF token every action's form
/// carries: an HMAC of who asks and in which role under a per-process random key, so it is
/// unguessable, needs no storage, and is good only for the one who was given it: an operator
/// who copies the token from a page cannot make an admin's browser act with it. A restart
/// invalidates open forms.
struct Secrets: Sendable {
    struct Token: Sendable {
        let value: String
        let role: ConsoleRole
    }
    /// DISCERN_CONSOLE_TOKEN (admin: what a reverse proxy sends), and the operator and viewer
    /// tokens where people sign in without a proxy.
    let tokens: [Token]
    private let csrfKey = SymmetricKey(size: .bits256)
    /// Signs sessions: derived from the tokens, so a new token ends every session.
    private let sessionKey: SymmetricKey?
    /// How long a sign-in lasts.
    static let sessionSeconds = 12 * 3600

    init(tokens: [Token]) {
        self.tokens = tokens
        let material = tokens.map { "\($0.role):\($0.value)" }.joined(separator: "\n")
        sessionKey = tokens.isEmpty ? nil : SymmetricKey(data: SHA256.hash(data: Data("discern-console-session:\(material)".utf8)))
    }

    /// No token at all: only this machine's own requests are served (AccessGuard).
    var hasTokens: Bool { !tokens.isEmpty }

    /// A session cookie's value, `EXPIRY.ROLE.SIGNATURE`: never the token itself, worthless once
    /// expired, and its role cannot be raised without the key.
    func session(role: ConsoleRole, now: Date = Date()) -> String? {
        guard let sessionKey else { return nil }
        let expiry = Int(now.timeIntervalSince1970) + Self.sessionSeconds
        return "\(expiry).\(role).\(Self.sign(expiry, role, sessionKey))"
    }

    /// The role a session signs in as, or nil when it is not one of ours or has expired.
    func sessionRole(_ candidate: String?, now: Date = Date()) -> ConsoleRole? {
        guard let sessionKey, let candidate else { return nil }
        let parts = candidate.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int(parts[0]), expiry > Int(now.timeIntervalSince1970),
            let role = ConsoleRole(name: String(parts[1])),
            Self.constantTimeEqual(String(parts[2]), Self.sign(expiry, role, sessionKey))
        else { return nil }
        return role
    }

    private static func sign(_ expiry: Int, _ role: ConsoleRole, _ key: SymmetricKey) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("session:\(expiry):\(role)".utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }

    /// The role `candidate` signs in as. Every token is compared, whichever matches.
    func role(ofToken candidate: String?) -> ConsoleRole? {
        guard let candidate else { return nil }
        var found: ConsoleRole?
        for token in tokens where Self.constantTimeEqual(candidate, token.value) { found = max(found ?? token.role, token.role) }
        return found
    }

    /// The form token of `user` in `role` (AccessGuard's names: a proxy's user, "operator token", "local").
    func csrf(user: String, role: ConsoleRole) -> String {
        // A user's name as the role map reads it: a proxy may not spell it the same way twice.
        HMAC<SHA256>.authenticationCode(for: Data("discern-console-csrf:\(role):\(user.lowercased())".utf8), using: csrfKey)
            .map { String(format: "%02x", $0) }.joined()
    }

    func isCSRF(_ candidate: String?, user: String, role: ConsoleRole) -> Bool {
        guard let candidate else { return false }
        return Self.constantTimeEqual(candidate, csrf(user: user, role: role))
    }

    /// Compares every byte whatever differs first, so the time taken says nothing of where.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
