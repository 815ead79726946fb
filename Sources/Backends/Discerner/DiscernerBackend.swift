import CurlHTTP
import Foundation
import Imaging
import JobQueue

/// Image Discerner (contracts.md §1): ask for a presigned upload URL, PUT the image to S3,
/// then ask for the analysis of the uploaded object.
public struct DiscernerBackend: AnalysisBackend {
    public struct Configuration: Sendable {
        /// e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/prod`; no trailing slash needed.
        public var baseURL: String
        public var imagePolicy: ImagePolicy
        public var requestTimeoutSeconds: Double
        public var uploadTimeoutSeconds: Double
        /// The service polls its workflow for up to 300 s; wait a little longer than that.
        public var analyzeTimeoutSeconds: Double
        /// Fresh URLs to ask for when S3 says the presigned one expired, within one attempt.
        public var expiredURLRetries: Int

        public init(baseURL: String, imagePolicy: ImagePolicy = .discerner, requestTimeoutSeconds: Double = 30,
                    uploadTimeoutSeconds: Double = 120, analyzeTimeoutSeconds: Double = 330, expiredURLRetries: Int = 2) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.imagePolicy = imagePolicy
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.uploadTimeoutSeconds = uploadTimeoutSeconds
            self.analyzeTimeoutSeconds = analyzeTimeoutSeconds
            self.expiredURLRetries = expiredURLRetries
        }
    }

    public let name = "discerner"
    public let configuration: Configuration
    private let http: CurlHTTPClient

    public init(configuration: Configuration, http: CurlHTTPClient) {
        self.configuration = configuration
        self.http = http
    }

    public var imagePolicy: ImagePolicy { configuration.imagePolicy }

    public func analyze(_ image: PreparedImage, request: AnalysisRequest) async throws(BackendError) -> JobResult.Analysis {
        guard request.action == "analyze" else {
            throw BackendError(.unsupportedAction, "the discerner backend only does 'analyze', not '\(request.action)'", retryable: false)
        }
        let fileExtension = image.format == .png ? "png" : "jpg"
        var grant = try await requestUpload(fileExtension: fileExtension)
        var retriesLeft = configuration.expiredURLRetries
        while true {
            do {
                try await upload(image, to: grant)
                break
            } catch where error.code == .uploadExpired && retriesLeft > 0 {
                retriesLeft -= 1
                grant = try await requestUpload(fileExtension: fileExtension)
            }
        }
        let answer = try await requestAnalysis(of: grant)
        return try DiscernerResponse.map(answer)
    }

    struct UploadGrant {
        let url: String
        let imageKey: String
        let bucket: String
        let contentType: String
    }

    private func requestUpload(fileExtension: String) async throws(BackendError) -> UploadGrant {
        let step = "Image Discerner upload-url"
        let body = try json(["file_extension": fileExtension])
        let response = try await send(.json(url: "\(configuration.baseURL)/upload-url", body: body,
                                            timeoutSeconds: configuration.requestTimeoutSeconds), step: step)
        guard response.status == 200 else { throw BackendError.status(response, during: step) }
        guard let object = JSONObject.parse(response.body), let url = object.string("upload_url"),
              let key = object.string("image_key"), let bucket = object.string("bucket_name") else {
            throw BackendError(.badResponse, "\(step) answered 200 without upload_url, image_key and bucket_name: \(response.bodySnippet)", retryable: true)
        }
        // The signed content type is `image/<ext>` literally (image/jpg); send exactly that.
        return UploadGrant(url: url, imageKey: key, bucket: bucket, contentType: object.string("content_type") ?? "image/\(fileExtension)")
    }

    private func upload(_ image: PreparedImage, to grant: UploadGrant) async throws(BackendError) {
        let step = "S3 upload of \(grant.imageKey)"
        let request = HTTPRequest(
            method: "PUT", url: grant.url,
            headers: [HTTPHeader("Content-Type", grant.contentType), HTTPHeader("x-amz-server-side-encryption", "AES256")],
            body: .bytes(image.data), timeoutSeconds: configuration.uploadTimeoutSeconds)
        let response = try await send(request, step: step)
        guard response.status != 200 else { return }
        let s3 = S3ErrorDocument(response.body)
        let detail = "\(step) was refused with HTTP \(response.status) \(s3.code ?? ""): \(s3.message ?? response.bodySnippet)"
        switch (response.status, s3.code) {
        case (403, "AccessDenied") where s3.message?.localizedCaseInsensitiveContains("expired") == true:
            throw BackendError(.uploadExpired, detail, retryable: true)
        case (403, _):
            throw BackendError(.uploadRejected, detail + " (check the service's signing configuration and this machine's clock)", retryable: false)
        default:
            throw BackendError.status(response, during: step)
        }
    }

    private func requestAnalysis(of grant: UploadGrant) async throws(BackendError) -> Data {
        let step = "Image Discerner analyze"
        let body = try json(["image_key": grant.imageKey, "bucket_name": grant.bucket])
        let response = try await send(.json(url: "\(configuration.baseURL)/analyze", body: body,
                                            timeoutSeconds: configuration.analyzeTimeoutSeconds), step: step)
        let object = JSONObject.parse(response.body)
        switch response.status {
        case 200:
            return response.body
        case 500 where object?.string("error")?.hasPrefix("Step Functions execution") == true:
            let cause = object?.string("cause") ?? object?.string("error") ?? "no cause given"
            throw BackendError(.analysisFailed, "\(step): the service's analysis workflow failed: \(cause)", retryable: true)
        case 504:
            throw BackendError(.timeout, "\(step) timed out on the service side (HTTP 504): \(response.bodySnippet)", retryable: true)
        default:
            throw BackendError.status(response, during: step)
        }
    }

    private func send(_ request: HTTPRequest, step: String) async throws(BackendError) -> HTTPResponse {
        do {
            return try await http.send(request)
        } catch {
            throw BackendError.transport(error, during: step)
        }
    }

    private func json(_ object: [String: String]) throws(BackendError) -> Data {
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        } catch {
            throw BackendError(.misconfigured, "cannot encode a request body: \(error)", retryable: false)
        }
    }
}

/// The `<Code>` and `<Message>` of an S3 error document — and nothing else from it, since real
/// S3 echoes the signature it was given.
struct S3ErrorDocument {
    let code: String?
    let message: String?

    init(_ body: Data) {
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let start = text.range(of: "<\(name)>"),
                  let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex) else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
        }
        code = element("Code")
        message = element("Message")
    }
}
