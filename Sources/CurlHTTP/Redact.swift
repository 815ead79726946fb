import Foundation

/// Keeps presigned-URL signatures and credentials out of logs, errors and rows.
public enum Redact {
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
