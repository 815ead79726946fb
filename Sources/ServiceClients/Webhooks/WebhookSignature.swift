import Crypto
import Foundation

/// How a receiver knows a webhook is discern's and fresh: the header
/// `Discern-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">`, keyed with the
/// secret both sides share (`DISCERN_WEBHOOK_SECRET`): Stripe's scheme. The receiver computes the
/// same HMAC over the timestamp and the raw body, compares in constant time, and refuses a
/// timestamp more than a few minutes old: a captured request cannot be replayed later.
/// docs/operations.md shows the check in a few lines of Python.
public enum WebhookSignature {
    public static let header = "Discern-Signature"

    public static func value(body: Data, timestamp: Int, secret: Secret) -> String {
        let key = SymmetricKey(data: Data(secret.plainText.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).".utf8) + body, using: key)
        return "t=\(timestamp),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}
