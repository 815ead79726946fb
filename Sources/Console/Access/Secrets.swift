import Crypto
import Foundation

/// The console's secrets: the access token (compared in constant time) and the CSRF token every
/// action's form carries (an HMAC of a per-process random key, so it is unguessable and needs
/// no storage; a restart invalidates open forms).
struct Secrets: Sendable {
    let accessToken: String?
    let csrf: String

    init(accessToken: String?) {
        self.accessToken = accessToken
        let key = SymmetricKey(size: .bits256)
        csrf = HMAC<SHA256>.authenticationCode(for: Data("discern-console-csrf".utf8), using: key).map { String(format: "%02x", $0) }.joined()
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
