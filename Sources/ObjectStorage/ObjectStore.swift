import CurlHTTP
import Foundation

/// What a HEAD says of an object.
public struct ObjectInfo: Sendable, Equatable {
    public let size: Int
    /// Without quotes.
    public let etag: String
}

/// An S3-compatible store, spoken to over libcurl with SigV4-signed requests: HEAD an object,
/// download it into a file, list a prefix (ListObjectsV2, a page at a time).
public final class ObjectStore: Sendable {
    public let settings: StoreSettings
    private let http: CurlHTTPClient
    private let signer: RequestSigner

    public init(settings: StoreSettings, http: CurlHTTPClient = CurlHTTPClient()) {
        self.settings = settings
        self.http = http
        signer = RequestSigner(settings: settings)
    }

    public func head(_ address: ObjectAddress) async throws(ObjectStorageError) -> ObjectInfo {
        let response = try await send("HEAD", bucket: address.bucket, key: address.key, what: "\(address)")
        guard let size = response.header("Content-Length").flatMap(Int.init), size >= 0 else {
            throw ObjectStorageError(.invalid, "the store's answer to HEAD \(address) has no Content-Length")
        }
        return ObjectInfo(size: size, etag: Self.etag(response))
    }

    /// Writes the object's bytes to `descriptor` (from its current offset); refuses one larger
    /// than `maxBytes` without keeping what came. Returns what the store said of what it sent.
    public func download(_ address: ObjectAddress, to descriptor: Int32, maxBytes: Int) async throws(ObjectStorageError) -> ObjectInfo {
        let response = try await send("GET", bucket: address.bucket, key: address.key, what: "\(address)", file: descriptor, maxBytes: maxBytes)
        return ObjectInfo(size: response.fileBytes, etag: Self.etag(response))
    }

    /// One page of the keys under `prefix`, 1,000 at most, after `token`'s page.
    public func list(bucket: String, prefix: String, after token: String? = nil) async throws(ObjectStorageError) -> ListPage {
        var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", "1000")]
        if let token { query.append(("continuation-token", token)) }
        let response = try await send("GET", bucket: bucket, key: "", query: query, what: "s3://\(bucket)/\(prefix)", maxBytes: 16 << 20)
        return try StoreAnswers.listPage(response.body)
    }

    private func send(
        _ method: String, bucket: String, key: String, query: [(String, String)] = [], what: String,
        file: Int32? = nil, maxBytes: Int = 1 << 20
    ) async throws(ObjectStorageError) -> HTTPResponse {
        let (host, path) = location(bucket: bucket, key: key)
        let headers = signer.headers(method: method, host: host, path: path, query: query)
        let queryText = query.isEmpty ? "" : "?" + query.map { "\(RequestSigner.encode($0.0))=\(RequestSigner.encode($0.1))" }.joined(separator: "&")
        var request = HTTPRequest(
            method: method, url: "\(settings.endpoint.scheme ?? "https")://\(host)\(path)\(queryText)",
            headers: [HTTPHeader("Host", host)] + headers.map { HTTPHeader($0.0, $0.1) },
            timeoutSeconds: file == nil ? 60 : 600, maxResponseBytes: maxBytes)
        request.responseFile = file
        let response: HTTPResponse
        do {
            response = try await http.send(request)
        } catch let error as HTTPError where error.code == .responseTooLarge {
            throw ObjectStorageError(.tooLarge, "\(what) is larger than \(maxBytes) bytes")
        } catch let error as HTTPError where error.code == .cancelled {
            throw ObjectStorageError(.cancelled, "\(method) \(what) was cancelled")
        } catch {
            throw ObjectStorageError(.unavailable, "\(method) \(what) failed: \(error)")
        }
        guard (200..<300).contains(response.status) else { throw refusal(response, method: method, what: what, bucket: bucket) }
        return response
    }

    /// Path style: endpoint/bucket/key; virtual host: bucket.endpoint/key.
    private func location(bucket: String, key: String) -> (host: String, path: String) {
        let base = settings.endpoint.host ?? "", port = settings.endpoint.port.map { ":\($0)" } ?? ""
        let prefix = settings.endpoint.path.hasSuffix("/") ? String(settings.endpoint.path.dropLast()) : settings.endpoint.path
        let encodedKey = RequestSigner.encode(key, keepSlash: true)
        switch settings.addressing {
        case .path: return ("\(base)\(port)", "\(prefix)/\(bucket)/\(encodedKey)")
        case .virtual: return ("\(bucket).\(base)\(port)", "\(prefix)/\(encodedKey)")
        }
    }

    private func refusal(_ response: HTTPResponse, method: String, what: String, bucket: String) -> ObjectStorageError {
        let document = StoreAnswers.error(response.body)
        let code = document?.code ?? "HTTP \(response.status)"
        let said = document.map { ": \($0.code) \($0.message)" } ?? " (HTTP \(response.status))"
        let retryAfter = response.header("Retry-After").flatMap(Double.init)
        switch (response.status, document?.code) {
        case (_, "NoSuchKey"), (404, nil):
            return ObjectStorageError(.noSuchKey, "\(what) is not in the bucket (deleted or renamed since it was enqueued?)\(said)", storeCode: code)
        case (_, "NoSuchBucket"):
            return ObjectStorageError(.noSuchBucket, "bucket \(bucket) does not exist at \(settings.endpoint.absoluteString)\(said)", storeCode: code)
        case (401, _), (403, _):
            return ObjectStorageError(
                .refused,
                "\(settings.endpoint.host ?? "the store") refused access key \(settings.accessKeyID) for bucket \(bucket)\(said): check the credential and the bucket's policy",
                storeCode: code)
        case (429, _), (500..., _), (_, "SlowDown"), (_, "RequestTimeout"), (_, "InternalError"):
            return ObjectStorageError(.unavailable, "\(method) \(what)\(said)", storeCode: code, retryAfterSeconds: retryAfter)
        default:
            return ObjectStorageError(.invalid, "\(method) \(what) was refused\(said)", storeCode: code)
        }
    }

    private static func etag(_ response: HTTPResponse) -> String {
        (response.header("ETag") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }
}
