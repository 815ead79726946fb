import Crypto
import Foundation

/// Checks a presigned request the way S3 does: algorithm, known key, credential scope, expiry,
/// then the signature over method, path, query and the signed headers.
struct PresignedRequestVerifier: Sendable {
    let signer: SigV4

    /// S3's error codes for the refusals a client can meet.
    enum Refusal: Error, Equatable {
        case accessDenied(String)
        case invalidAccessKey
        /// Real S3 echoes the signature it was given and the string it signed.
        case signatureDoesNotMatch(provided: String, stringToSign: String)
        case authorizationQueryParametersError(String)

        var code: String {
            switch self {
            case .accessDenied: return "AccessDenied"
            case .invalidAccessKey: return "InvalidAccessKeyId"
            case .signatureDoesNotMatch: return "SignatureDoesNotMatch"
            case .authorizationQueryParametersError: return "AuthorizationQueryParametersError"
            }
        }

        /// What else S3 puts in the error document.
        var extraElements: [(String, String)] {
            if case .signatureDoesNotMatch(let provided, let stringToSign) = self {
                return [("StringToSign", stringToSign), ("SignatureProvided", provided)]
            }
            return []
        }

        var message: String {
            switch self {
            case .accessDenied(let message): return message
            case .invalidAccessKey: return "The AWS Access Key Id you provided does not exist in our records."
            case .signatureDoesNotMatch:
                return "The request signature we calculated does not match the signature you provided. Check your key and signing method."
            case .authorizationQueryParametersError(let message): return message
            }
        }
    }

    /// - Parameters:
    ///   - path: the request path as received (percent-encoded).
    ///   - rawQuery: the query string as received.
    ///   - headers: the request's headers, names in any case.
    func verify(method: String, path: String, rawQuery: String, headers: [String: String], now: Date) throws(Refusal) {
        let query = QueryString.parse(rawQuery)
        func value(_ name: String) -> String? { query.first { $0.0 == name }?.1 }

        guard let algorithm = value("X-Amz-Algorithm"), let credential = value("X-Amz-Credential"),
            let amzDate = value("X-Amz-Date"), let expiresText = value("X-Amz-Expires"),
            let signedHeaderList = value("X-Amz-SignedHeaders"), let signature = value("X-Amz-Signature")
        else {
            throw .accessDenied(
                "Query-string authentication requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters."
            )
        }
        guard algorithm == "AWS4-HMAC-SHA256" else {
            throw .authorizationQueryParametersError("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
        }
        let scopeParts = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard scopeParts.count == 5, scopeParts[4] == "aws4_request" else {
            throw .authorizationQueryParametersError("Error parsing the X-Amz-Credential parameter.")
        }
        guard scopeParts[0] == signer.accessKeyID else { throw .invalidAccessKey }
        guard let signedAt = SigV4.parseAmzDate(amzDate), let expires = Int(expiresText), (1...604_800).contains(expires),
            String(amzDate.prefix(8)) == scopeParts[1], scopeParts[2] == signer.region, scopeParts[3] == signer.service
        else {
            throw .authorizationQueryParametersError("X-Amz-Date, X-Amz-Expires or the credential scope is malformed.")
        }
        guard now <= signedAt.addingTimeInterval(Double(expires)) else { throw .accessDenied("Request has expired") }
        guard signedAt.timeIntervalSince(now) <= 900 else { throw .accessDenied("Request is not valid yet") }

        let signedHeaders = signedHeaderList.split(separator: ";").map { String($0).lowercased() }
        guard signedHeaders.contains("host") else {
            throw .authorizationQueryParametersError("X-Amz-SignedHeaders must include host.")
        }
        // S3 refuses any x-amz-* header a presigned request did not sign.
        let unsigned = headers.keys.map { $0.lowercased() }.filter { $0.hasPrefix("x-amz-") && !signedHeaders.contains($0) }
        guard unsigned.isEmpty else {
            throw .accessDenied("There were headers present in the request which were not signed (\(unsigned.sorted().joined(separator: ", ")))")
        }
        let canonicalPath = SigV4.encode(QueryString.percentDecode(path), keepSlash: true)
        let canonical = SigV4.canonicalRequest(
            method: method, path: canonicalPath, query: query,
            headers: headers, signedHeaders: signedHeaders)
        let expected = signer.sign(canonical, amzDate: amzDate, scope: scopeParts[1...].joined(separator: "/"))
        guard constantTimeEqual(expected, signature.lowercased()) else {
            throw .signatureDoesNotMatch(
                provided: signature, stringToSign: "AWS4-HMAC-SHA256\n\(amzDate)\n\(scopeParts[1...].joined(separator: "/"))")
        }
    }

    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Query strings as received on the wire: split, then percent-decoded ('+' is a space).
enum QueryString {
    static func parse(_ raw: String) -> [(String, String)] {
        raw.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(String(parts[0]).replacingOccurrences(of: "+", with: " "))
            let value = parts.count > 1 ? percentDecode(String(parts[1]).replacingOccurrences(of: "+", with: " ")) : ""
            return (name, value)
        }
    }

    static func percentDecode(_ text: String) -> String {
        text.removingPercentEncoding ?? text
    }
}
