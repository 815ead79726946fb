import Crypto
import Foundation

/// AWS Signature Version 4 in the Authorization header, as S3 checks it: the canonical request
/// (method, path, sorted query, the signed headers, the payload's hash), signed with a key
/// derived from the secret for the day, region and service.
struct RequestSigner: Sendable {
    let credentials: AWSCredentials
    let region: String

    /// SHA-256 of an empty payload: what every GET, HEAD and LIST sends.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to send: `host`, `x-amz-date`, `x-amz-content-sha256`, the session token if
    /// any, the `extra` ones given, and `Authorization` over all of them.
    func headers(
        method: String, host: String, path: String, query: [(String, String)], extra: [(String, String)] = [],
        at moment: Date = Date()
    ) -> [(String, String)] {
        let amzDate = Self.amzDate(moment), day = String(amzDate.prefix(8))
        var signed =
            [("host", host), ("x-amz-content-sha256", Self.emptyPayloadHash), ("x-amz-date", amzDate)]
            + extra.map { ($0.0.lowercased(), $0.1.trimmingCharacters(in: .whitespaces)) }
        if let token = credentials.sessionToken { signed.append(("x-amz-security-token", token)) }
        signed.sort { $0.0 < $1.0 }
        let names = signed.map(\.0).joined(separator: ";")
        let canonical = [
            method, path,
            query.map { (Self.encode($0.0), Self.encode($0.1)) }.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&"),
            signed.map { "\($0.0):\($0.1)\n" }.joined(), names, Self.emptyPayloadHash
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/s3/aws4_request"
        let toSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Self.hex(SHA256.hash(data: Data(canonical.utf8))))"
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, "s3", "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key))
        return signed.filter { $0.0 != "host" }
            + [("Authorization", "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(names), Signature=\(signature)")]
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (and `/` in a
    /// path), as SigV4 wants it; the same text is sent, so what is signed is what arrives.
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 65...90, 97...122, 48...57, 45, 46, 95, 126: out.unicodeScalars.append(UnicodeScalar(byte))
            case 47 where keepSlash: out.append("/")
            default: out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, from the C library (a DateFormatter per request cost more
    /// than the signature).
    static func amzDate(_ moment: Date) -> String {
        var seconds = time_t(moment.timeIntervalSince1970.rounded(.down)), parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec)
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
