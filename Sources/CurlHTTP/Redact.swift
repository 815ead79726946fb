import Foundation
import Synchronization

/// Keeps presigned-URL signatures and credentials out of logs, errors and rows.
public enum Redact {
    /// Credentials this process holds (every `Secret` made, as it is made): masked wherever they
    /// appear, since a service or a gateway may echo the key it refused ("invalid APP-KEY
    /// 3f9c…") in the body that becomes a job's error.
    private static let known = Mutex<Set<String>>([])
    /// Secrets that replace one another (temporary credentials, refreshed every hour): the
    /// newest two of each slot, so a process that runs for months does not mask thousands.
    private static let rotating = Mutex<[String: [String]]>([:])

    /// Masks `secret` in every later `text(_:)`. Values under 6 characters are not masked: they
    /// would blank common words, and no service issues keys that short.
    public static func remember(secret: String) {
        guard secret.count >= 6 else { return }
        _ = known.withLock { $0.insert(secret) }
    }

    /// Masks `secret` as `remember(secret:)` does, in place of the one before the last that
    /// `slot` held: for credentials that are replaced when they run out.
    public static func remember(secret: String, slot: String) {
        guard secret.count >= 6 else { return }
        rotating.withLock { slots in
            let held = slots[slot, default: []]
            guard !held.contains(secret) else { return }
            slots[slot] = Array((held + [secret]).suffix(2))
        }
    }

    /// The URL without its query string: `https://host/path?…`. Presigned URLs carry their
    /// signature and credential scope in the query.
    public static func url(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return url }
        return String(url[..<mark]) + "?…"
    }

    /// Masks SigV4 query values and other credential-looking fields anywhere in a text.
    public static func text(_ text: String) -> String {
        var result = text
        for field in ["X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "Signature", "AWSAccessKeyId"] {
            result = mask(field, in: result)
        }
        let secrets = known.withLock { $0 }.union(rotating.withLock { $0.values.flatMap { $0 } })
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "REDACTED")
        }
        return result
    }

    private static func mask(_ field: String, in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: field + "=", options: .caseInsensitive) {
            result += rest[..<range.upperBound] + "REDACTED"
            rest = rest[range.upperBound...]
            let end = rest.firstIndex { "&\" <\n\t'".contains($0) } ?? rest.endIndex
            rest = rest[end...]
        }
        return result + rest
    }
}
