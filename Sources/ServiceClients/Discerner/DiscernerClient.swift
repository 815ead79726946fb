import AnalysisModel
import CurlHTTP
import Foundation
import Imaging

/// Image Discerner (docs/services.md, "Image Discerner"): ask for a presigned upload URL, PUT the image to S3,
/// then ask for the analysis of the uploaded object.
public struct DiscernerClient: AnalysisClient, ConfiguredClient {
    public let name = Services.discerner.name
    let configuration: Configuration
    let caller: ServiceCaller

    public func input(for action: String) -> InputHandling { .image(configuration.imagePolicy) }

    public func analyze(_ upload: Upload, request: AnalysisRequest) async throws(ServiceError) -> Analysis {
        guard request.action == "analyze" else { throw request.unsupported(by: name, supported: Services.discerner.actions) }
        var conversation = caller.conversation(request)
        let fileExtension = upload.fileExtension == "png" ? "png" : "jpg"
        var grant = try await requestUpload(fileExtension: fileExtension, &conversation)
        var retriesLeft = configuration.expiredURLRetries
        while true {
            do {
                try await put(upload, to: grant, &conversation)
                break
            } catch  where error.code == .uploadExpired && retriesLeft > 0 {
                retriesLeft -= 1
                grant = try await requestUpload(fileExtension: fileExtension, &conversation)
            }
        }
        var analysis = try await requestAnalysis(of: grant, &conversation)
        analysis.apiCalls = conversation.calls
        analysis.provenance.serviceHost = Provenance.host(of: configuration.baseURL)
        return analysis
    }

    private func requestUpload(fileExtension: String, _ conversation: inout Conversation) async throws(ServiceError) -> UploadGrant {
        let step = "Image Discerner upload-url"
        let body = try JSONBody.encode(["file_extension": fileExtension])
        let request = HTTPRequest.json(url: "\(configuration.baseURL)/upload-url", body: body, timeoutSeconds: configuration.requestTimeoutSeconds)
        let destinations = UploadGrant.Destinations(serviceURL: configuration.baseURL, allowedHosts: configuration.uploadAllowedHosts)
        return try await conversation.send(request, step: step, limitKey: Services.discernerUploadKey) { response throws(ServiceError) in
            guard response.status == 200 else { throw ServiceError.status(response, during: step) }
            guard let object = UntrustedJSON.parse(response.body), let url = object.string("upload_url", maxLength: 8192),
                let key = object.string("image_key", maxLength: 1024), let bucket = object.string("bucket_name", maxLength: 255)
            else {
                throw ServiceError(.badResponse, "\(step) answered 200 without upload_url, image_key and bucket_name: \(response.bodySnippet)")
            }
            // The signed content type is `image/<ext>` literally (image/jpg); send exactly that.
            let contentType = object.string("content_type", maxLength: 128) ?? "image/\(fileExtension)"
            return try UploadGrant(url: url, imageKey: key, bucket: bucket, contentType: contentType, destinations: destinations)
        }
    }

    private func put(_ upload: Upload, to grant: UploadGrant, _ conversation: inout Conversation) async throws(ServiceError) {
        let step = "S3 upload of \(grant.imageKey)"
        var request = HTTPRequest(
            method: "PUT", url: grant.url, headers: grant.headers, body: .bytes(upload.data),
            timeoutSeconds: configuration.uploadTimeoutSeconds, maxResponseBytes: 64 * 1024)
        request.addressRule = grant.addressRule
        try await conversation.send(request, step: step) { response throws(ServiceError) in
            guard response.status != 200 else { return }
            // Only <Code> and <Message>: S3's error document also echoes the signature it got.
            let s3 = S3ErrorDocument(response.body)
            throw Self.refusal(status: response.status, s3, step: step, retryAfter: RetryAfter.seconds(response))
        }
    }

    /// What an S3 refusal of the PUT means for the job. A slow or cut upload (400 RequestTimeout,
    /// IncompleteBody) is the network's weather; a credential or clock that expired on the
    /// signing side (ExpiredToken, RequestTimeTooSkewed) is cured by a fresh upload URL, as an
    /// expired one is; only a refusal of the request itself ends the photo.
    static func refusal(status: Int, _ s3: S3ErrorDocument, step: String, retryAfter: Double?) -> ServiceError {
        let detail = "\(step) was refused with HTTP \(status) \(s3.code ?? "(no S3 error code)"): \(s3.message ?? "no message")"
        switch (status, s3.code) {
        case (403, "AccessDenied") where s3.message?.localizedCaseInsensitiveContains("expired") == true,
            (400, "ExpiredToken"), (400, "TokenRefreshRequired"), (403, "RequestTimeTooSkewed"):
            return ServiceError(.uploadExpired, detail)
        case (400, "RequestTimeout"), (400, "IncompleteBody"):
            return ServiceError(.network, detail)
        case (403, _):
            return ServiceError(.uploadRejected, detail + " (check the service's signing configuration and this machine's clock)")
        case (429, _), (500...599, _):
            return ServiceError(status == 429 ? .rateLimited : .serverError, detail, retryAfterSeconds: retryAfter)
        default:
            return ServiceError(.clientError, detail)
        }
    }

    private func requestAnalysis(of grant: UploadGrant, _ conversation: inout Conversation) async throws(ServiceError) -> Analysis {
        let step = "Image Discerner analyze"
        let body = try JSONBody.encode(["image_key": grant.imageKey, "bucket_name": grant.bucket])
        let request = HTTPRequest.json(url: "\(configuration.baseURL)/analyze", body: body, timeoutSeconds: configuration.analyzeTimeoutSeconds)
        return try await conversation.send(request, step: step, limitKey: Services.discernerAnalyzeKey) { response throws(ServiceError) in
            guard response.status != 200 else {
                // Read here, so a garbled answer is retried like any other transient fault.
                return try DiscernerResponse.map(response.body)
            }
            throw DiscernerFailure.classify(response, step: step)
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
                let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
            else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
        }
        code = element("Code")
        message = element("Message")
    }
}
