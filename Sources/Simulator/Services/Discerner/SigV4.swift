import Crypto
import Foundation

/// AWS Signature Version 4 with query-string authentication, as S3 uses it for presigned URLs.
/// The simulator signs the URLs it hands out and checks the PUTs it receives with the same
/// canonicalisation; a test cross-checks both against botocore's signer.
public struct SigV4: Sendable {
    public let accessKeyID: String
    let secretAccessKey: String
    public let region: String
    public let service: String

    public init(accessKeyID: String, secretAccessKey: String, region: String = "us-east-1", service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// A presigned URL for `method` on `path` (already URI-encoded), signing the given headers
    /// (names lower-case, `host` included).
    public func presign(
        method: String, scheme: String, host: String, path: String,
        headers: [String: String], expires: Int, at date: Date
    ) -> String {
        let amzDate = SigV4.amzDate(date)
        let scope = "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request"
        let signedHeaders = headers.keys.map { $0.lowercased() }.sorted()
        let query: [(String, String)] = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", "\(accessKeyID)/\(scope)"),
            ("X-Amz-Date", amzDate),
            ("X-Amz-Expires", String(expires)),
            ("X-Amz-SignedHeaders", signedHeaders.joined(separator: ";"))
        ]
        let canonical = SigV4.canonicalRequest(
            method: method, path: path, query: query,
            headers: headers, signedHeaders: signedHeaders)
        let signature = sign(canonical, amzDate: amzDate, scope: scope)
        let queryString = (query + [("X-Amz-Signature", signature)])
            .map { "\(SigV4.encode($0.0))=\(SigV4.encode($0.1))" }.joined(separator: "&")
        return "\(scheme)://\(host)\(path)?\(queryString)"
    }

    /// The hex signature for a canonical request.
    func sign(_ canonicalRequest: String, amzDate: String, scope: String) -> String {
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope,
            SHA256.hash(data: Data(canonicalRequest.utf8)).hex
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [String(amzDate.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Data(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key)).hex
    }

    static func canonicalRequest(
        method: String, path: String, query: [(String, String)],
        headers: [String: String], signedHeaders: [String]
    ) -> String {
        let encoded: [(name: String, value: String)] =
            query
            .filter { $0.0 != "X-Amz-Signature" }
            .map { (name: encode($0.0), value: encode($0.1)) }
        let sorted = encoded.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let canonicalQuery = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        let canonicalHeaders = signedHeaders.map { name in
            let value = (lowered[name] ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return "\(name):\(value)\n"
        }.joined()
        return [method, path, canonicalQuery, canonicalHeaders, signedHeaders.joined(separator: ";"), "UNSIGNED-PAYLOAD"]
            .joined(separator: "\n")
    }

    static func amzDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    static func parseAmzDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.date(from: text)
    }

    /// URI encoding as SigV4 defines it: everything but A-Z a-z 0-9 - _ . ~ is %XX (upper hex).
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

extension Sequence where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
