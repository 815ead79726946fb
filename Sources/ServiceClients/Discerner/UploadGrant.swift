import CurlHTTP
import ErrorCodes
import Foundation

/// A presigned S3 upload handed out by `/upload-url`, and the headers its PUT must carry.
///
/// S3 checks a presigned PUT against the headers the URL signed (`X-Amz-SignedHeaders`): each
/// must be sent with the value signed, and an `x-amz-*` header the URL did not sign is refused
/// outright. So the PUT carries exactly the signed headers — `Content-Type` set to the granted
/// `content_type`, `x-amz-server-side-encryption: AES256` only when signed — and nothing else
/// of S3's. A signed header whose value discern cannot know is refused here, with a message,
/// rather than by S3 with a signature mismatch.
struct UploadGrant {
    let url: String
    let imageKey: String
    let bucket: String
    let contentType: String
    let headers: [HTTPHeader]
    /// Where the PUT may connect: anywhere for the service's own host, else public addresses only.
    let addressRule: AddressRule

    /// Where an upload may go. A hostile or broken service could hand out a URL at a cloud
    /// metadata address or an internal host: the worker would PUT the photo there and report
    /// the answer. So an upload goes to the service's own scheme, host and port, or over https
    /// to a public address; a host named in `allowedHosts` (or `*`, behind an HTTP proxy) may be
    /// internal. Anything else ends the job dead, naming the refused host.
    struct Destinations: Sendable {
        let service: URLComponents?
        let allowedHosts: Set<String>

        init(serviceURL: String, allowedHosts: Set<String>) {
            service = URLComponents(string: serviceURL)
            self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        }

        func rule(for upload: URLComponents, scheme: String, host: String) throws(ServiceError) -> AddressRule {
            if let service, service.scheme?.lowercased() == scheme, service.host?.lowercased() == host,
                Self.port(service) == Self.port(upload)
            {
                return .any
            }
            // Plain http only to a host the operator named (an S3-compatible store inside the
            // network, such as MinIO or SeaweedFS): never by `*`, never by default.
            guard scheme == "https" || (scheme == "http" && allowedHosts.contains(host)) else {
                throw ServiceError(
                    .destinationRefused,
                    "Image Discerner handed out an upload URL over \(scheme) at \(host), which is not the service's own host; "
                        + "refusing to send the image there unless DISCERN_UPLOAD_ALLOWED_HOSTS names \(host)")
            }
            return allowedHosts.contains(host) || allowedHosts.contains("*") ? .any : .publicOnly
        }

        static func port(_ url: URLComponents) -> Int? {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
        }
    }

    init(url: String, imageKey: String, bucket: String, contentType: String, destinations: Destinations) throws(ServiceError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else {
            throw ServiceError(.badResponse, "Image Discerner handed out an upload URL that is not a URL (\(Redact.url(url)))")
        }
        self.addressRule = try destinations.rule(for: components, scheme: scheme, host: host)
        self.url = url
        self.imageKey = imageKey
        self.bucket = bucket
        self.contentType = contentType
        self.headers = try Self.headers(signed: Self.signedHeaders(components), contentType: contentType)
    }

    static func signedHeaders(_ components: URLComponents) -> [String] {
        let list = components.queryItems?.first { $0.name.caseInsensitiveCompare("X-Amz-SignedHeaders") == .orderedSame }?.value ?? "host"
        return list.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    private static func headers(signed: [String], contentType: String) throws(ServiceError) -> [HTTPHeader] {
        // Content-Type always: unsigned it is harmless, and without it libcurl would label the
        // body as a form.
        var headers = [HTTPHeader("Content-Type", contentType)]
        for name in signed {
            switch name {
            case "host", "content-type", "content-length":
                continue  // libcurl sends Host and Content-Length itself
            case "x-amz-server-side-encryption":
                headers.append(HTTPHeader("x-amz-server-side-encryption", "AES256"))
            default:
                throw ServiceError(
                    .badResponse, "the upload URL signs the header \(name), whose value discern cannot know; the upload would be refused",
                    kind: .discernerUnsupportedUploadUrl)
            }
        }
        return headers
    }
}
