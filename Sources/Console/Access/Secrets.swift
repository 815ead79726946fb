import Crypto
import Foundation

/// The console's secrets: the access token (compared in constant time), the sessions the
/// sign-in page hands out, and the CSRF token every action's form carries (an HMAC of a
/// per-process random key, so it is unguessable and needs no storage; a restart invalidates open
/// forms).
struct Secrets: Sendable {
    let accessToken: String?
    let csrf: String
    /// Signs sessions: derived from the token, so a new token ends every session.
    private let sessionKey: SymmetricKey?
    /// How long a sign-in lasts.
    static let sessionSeconds = 12 * 3600

    init(accessToken: String?) {
        self.accessToken = accessToken
        let key = SymmetricKey(size: .bits256)
        csrf = HMAC<SHA256>.authenticationCode(for: Data("discern-console-csrf".utf8), using: key).map { String(format: "%02x", $0) }.joined()
        sessionKey = accessToken.map { SymmetricKey(data: SHA256.hash(data: Data("discern-console-session:\($0)".utf8))) }
    }

    /// A session cookie's value, `EXPIRY.SIGNATURE`: never the token itself, and worthless once expired.
    func session(now: Date = Date()) -> String? {
        guard let sessionKey else { return nil }
        let expiry = Int(now.timeIntervalSince1970) + Self.sessionSeconds
        return "\(expiry).\(Self.sign(expiry, sessionKey))"
    }

    func isSession(_ candidate: String?, now: Date = Date()) -> Bool {
        guard let sessionKey, let candidate, let dot = candidate.firstIndex(of: "."),
              let expiry = Int(candidate[..<dot]), expiry > Int(now.timeIntervalSince1970) else { return false }
        return Self.constantTimeEqual(String(candidate[candidate.index(after: dot)...]), Self.sign(expiry, sessionKey))
    }

    private static func sign(_ expiry: Int, _ key: SymmetricKey) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("session:\(expiry)".utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }

    func isAccessToken(_ candidate: String?) -> Bool {
        guard let accessToken, let candidate else { return false }
        return Self.constantTimeEqual(candidate, accessToken)
    }

    func isCSRF(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        return Self.constantTimeEqual(candidate, csrf)
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
