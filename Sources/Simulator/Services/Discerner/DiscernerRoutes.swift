import DedicatedThreads
import Foundation
import Hummingbird
import Imaging

/// Image Discerner's API (contracts.md §1): /upload-url, the presigned S3 PUT, /analyze.
struct DiscernerRoutes: Sendable {
    let configuration: SimulatorConfiguration
    let store: ObjectStore
    let baseURL: @Sendable () -> String
    let decoder: ThreadPool
    let faults: FaultInjector

    private static let allowedExtensions = ["jpg", "jpeg", "png", "heic", "heif"]

    func register(on router: Router<BasicRequestContext>) {
        router.post("/upload-url") { request, _ in
            try await faults.guarded("discerner", route: "discerner.upload-url", request) { try await uploadURL(request) }
        }
        router.post("/analyze") { request, _ in
            try await faults.guarded("discerner", route: "discerner.analyze", request) { try await analyze(request) }
        }
        router.put("/\(configuration.bucket)/**") { request, _ in try await putObject(request) }
    }

    private func uploadURL(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let fileExtension = ((Reply.jsonObject(body)?["file_extension"] as? String) ?? "jpg").lowercased()
        guard Self.allowedExtensions.contains(fileExtension) else {
            return Reply.json(.badRequest, ["error": "Invalid file extension. Allowed: jpg, jpeg, png, heic, heif"])
        }
        let now = configuration.clock()
        let stamp = DateFormatter.simulatorKeyStamp.string(from: now)
        let key = "uploads/\(stamp)-\(String(format: "%08x", UInt32.random(in: .min ... .max))).\(fileExtension)"
        let contentType = "image/\(fileExtension)"
        let base = URL(string: baseURL())
        let host = base.map { "\($0.host ?? "127.0.0.1")\($0.port.map { ":\($0)" } ?? "")" } ?? configuration.host
        let expired = Double.random(in: 0..<1) < configuration.faults.expiredUploadURLRate
        let signedAt = expired ? now.addingTimeInterval(-Double(configuration.presignExpirySeconds) - 60) : now
        let url = signer.presign(
            method: "PUT", scheme: base?.scheme ?? "http", host: host, path: "/\(configuration.bucket)/\(key)",
            headers: ["content-type": contentType, "host": host, "x-amz-server-side-encryption": "AES256"],
            expires: configuration.presignExpirySeconds, at: signedAt)
        return Reply.json(.ok, [
            "upload_url": url, "image_key": key, "bucket_name": configuration.bucket,
            "expires_in": configuration.presignExpirySeconds, "content_type": contentType,
        ])
    }

    private func putObject(_ request: Request) async throws -> Response {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        // HTTP/1 Host arrives as the request's authority, not among the header fields.
        headers["host"] = request.head.authority ?? headers["host"]
        do {
            try PresignedRequestVerifier(signer: signer).verify(
                method: request.method.rawValue, path: request.uri.path, rawQuery: request.uri.query ?? "",
                headers: headers, now: configuration.clock())
        } catch {
            return Reply.s3Error(.forbidden, code: error.code, message: error.message)
        }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024 * 1024)
        let key = String(QueryString.percentDecode(request.uri.path).dropFirst(configuration.bucket.count + 2))
        await store.put(key, .init(data: Data(body.readableBytesView), contentType: headers["content-type"] ?? ""))
        return Response(status: .ok, headers: [.eTag: "\"\(key.hashValue.magnitude)\""])
    }

    private func analyze(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let fields = Reply.jsonObject(body)
        guard let imageKey = fields?["image_key"] as? String, let bucket = fields?["bucket_name"] as? String,
              !imageKey.isEmpty, !bucket.isEmpty else {
            return Reply.json(.badRequest, [
                "error": "Missing required fields: image_key, bucket_name",
                "example": ["image_key": "uploads/20240101-120000-abcd1234.jpg", "bucket_name": configuration.bucket],
            ])
        }
        if configuration.faults.analyzeDelaySeconds > 0 {
            try await Task.sleep(for: .seconds(configuration.faults.analyzeDelaySeconds))
        }
        let execution = "sim-\(UUID().uuidString.lowercased())"
        let arn = "arn:aws:states:\(configuration.region):000000000000:execution:image-discerner:\(execution)"
        // Like the real service, a missing object is not a 404: the workflow fails.
        guard bucket == configuration.bucket, let object = await store.get(imageKey) else {
            return failedExecution(arn, cause: "NoSuchKey: The specified key does not exist. (\(imageKey))")
        }
        guard object.data.count <= configuration.maxAnalyzeBytes else {
            return failedExecution(arn, cause: "Image is \(object.data.count) bytes; the limit is \(configuration.maxAnalyzeBytes) bytes")
        }
        let facts: ImageInspector.Facts
        do {
            facts = try await decoder.run { try ImageInspector.inspect(object.data) }
        } catch {
            return failedExecution(arn, cause: "Image could not be decoded: \(error)")
        }
        let answer = configuration.discernerResponseFormat.hasPrefix("3")
            ? DiscernerAnswer.formatThree(DiscernerAnswer.body(for: object.data, imageKey: imageKey, width: facts.width, height: facts.height))
            : DiscernerAnswer.body(for: object.data, imageKey: imageKey, width: facts.width, height: facts.height)
        return Reply.json(.ok, [
            "success": true, "execution_arn": arn, "execution_name": execution,
            "analysis_result": ["statusCode": 200, "body": answer],
            "processing_time_seconds": 2.0,
        ])
    }

    private func failedExecution(_ arn: String, cause: String) -> Response {
        Reply.json(.internalServerError, [
            "success": false, "error": "Step Functions execution failed", "execution_arn": arn, "cause": cause,
        ])
    }

    private var signer: SigV4 {
        SigV4(accessKeyID: configuration.accessKeyID, secretAccessKey: configuration.secretAccessKey,
              region: configuration.region)
    }
}

extension DateFormatter {
    static var simulatorKeyStamp: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter
    }
}
