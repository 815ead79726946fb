import DedicatedThreads
import Foundation
import Hummingbird

/// Image Discerner's API (docs/services.md, "Image Discerner"): /upload-url, the presigned S3 PUT, /analyze, as
/// strict as the deployed service: one analysis start per second (workflow names have one-second
/// resolution), the documented per-minute limits, the vision step's request size, and S3's
/// checks of presigned PUTs.
struct DiscernerRoutes: Sendable {
    let configuration: SimulatorConfiguration
    let store: ObjectStore
    let baseURL: @Sendable () -> String
    let decoder: ThreadPool
    let faults: FaultInjector
    let hold: AnalysisHold
    let provider: DiscernerProviderState
    let windows = CallWindows()
    let executions = ExecutionNames()

    /// Step Functions refuses a second execution with a name already used.
    actor ExecutionNames {
        private var recent: [String: Date] = [:]

        /// False when the name was taken; names older than two minutes are forgotten (only a
        /// start in the same second can collide).
        func claim(_ name: String, at moment: Date) -> Bool {
            recent = recent.filter { moment.timeIntervalSince($0.value) < 120 }
            guard recent[name] == nil else { return false }
            recent[name] = moment
            return true
        }
    }

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

    /// API Gateway's throttling answer, when a documented limit is on and exceeded.
    private func throttled(_ route: String, limit: Int, _ request: Request) async -> Response? {
        guard configuration.throughputLimits,
            let wait = await windows.admit(route, limit: limit, per: 60, at: request.arrival(configuration))
        else { return nil }
        await faults.stats.recordRefusal("discerner.\(route).429")
        var response = Reply.json(.tooManyRequests, ["message": "Too Many Requests"])
        response.headers[.retryAfter] = "\(Int(wait.rounded(.up)))"
        return response
    }

    private func uploadURL(_ request: Request) async throws -> Response {
        if let refused = await throttled("upload-url", limit: 100, request) { return refused }
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
        return Reply.json(
            .ok,
            [
                "upload_url": url, "image_key": key, "bucket_name": configuration.bucket,
                "expires_in": configuration.presignExpirySeconds, "content_type": contentType
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
            await faults.stats.recordRefusal(
                error.code == "AccessDenied" && error.message.contains("not signed") ? "s3.unsigned_header" : "s3.refused")
            return Reply.s3Error(.forbidden, code: error.code, message: error.message, extra: error.extraElements)
        }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024 * 1024)
        let key = String(QueryString.percentDecode(request.uri.path).dropFirst(configuration.bucket.count + 2))
        await store.put(key, .init(data: Data(body.readableBytesView), contentType: headers["content-type"] ?? ""))
        return Response(status: .ok, headers: [.eTag: "\"\(key.hashValue.magnitude)\""])
    }

    private func analyze(_ request: Request) async throws -> Response {
        if let refused = await throttled("analyze", limit: 50, request) { return refused }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let fields = Reply.jsonObject(body)
        guard let imageKey = fields?["image_key"] as? String, let bucket = fields?["bucket_name"] as? String,
            !imageKey.isEmpty, !bucket.isEmpty
        else {
            return Reply.json(
                .badRequest,
                [
                    "error": "Missing required fields: image_key, bucket_name",
                    "example": ["image_key": "images/truck-photo.jpg", "bucket_name": configuration.bucket]
                ])
        }
        // The handler names the workflow after the current second, then starts it (the second the
        // call arrived: a simulator held up by its own load must not see collisions a client did not cause).
        let started = request.arrival(configuration)
        let execution = "analysis-\(DateFormatter.simulatorKeyStamp.string(from: started))"
        let arn = "arn:aws:states:\(configuration.region):000000000000:execution:image-discerner:\(execution)"
        if configuration.throughputLimits, !(await executions.claim(execution, at: started)) {
            await faults.stats.recordRefusal("discerner.start_collision")
            return Reply.json(
                .internalServerError,
                [
                    "error":
                        "Failed to start analysis: An error occurred (ExecutionAlreadyExists) when calling the StartExecution operation: Execution Already Exists: '\(arn)'"
                ])
        }
        if configuration.faults.analyzeDelaySeconds > 0 {
            try await Task.sleep(for: .seconds(configuration.faults.analyzeDelaySeconds))
        }
        await hold.pass(correlationID: request.header("X-Correlation-ID"))
        // Like the real service, a missing object is not a 404: the workflow fails.
        guard bucket == configuration.bucket, let object = await store.get(imageKey) else {
            return failedExecution(
                arn,
                cause: "Failed to read image: An error occurred (NoSuchKey) when calling the GetObject operation: The specified key does not exist.")
        }
        // The vision step sends the image base64-encoded inside a JSON request to Google Cloud
        // Vision, which refuses requests over its limit with a 400.
        let visionRequestBytes = (object.data.count + 2) / 3 * 4 + Self.visionRequestOverhead
        guard visionRequestBytes <= configuration.visionRequestLimit else {
            await faults.stats.recordRefusal("discerner.vision_rejected")
            return failedExecution(
                arn,
                cause:
                    "GCP Vision REST classification failed: 400 Client Error: Bad Request for url: https://vision.googleapis.com/v1/images:annotate (request payload size \(visionRequestBytes) exceeds the limit: \(configuration.visionRequestLimit) bytes)"
            )
        }
        guard let facts = await SimulatedImage.inspect(object.data, on: decoder)?.facts else {
            return failedExecution(
                arn,
                cause:
                    "GCP Vision REST classification failed: 400 Client Error: Bad Request for url: https://vision.googleapis.com/v1/images:annotate (Bad image data)"
            )
        }
        let scene = DiscernerScene(image: object.data, provider: provider.value)
        let milliseconds = 6000 + Int(SimulatedImage.fraction(of: SimulatedImage.seed(of: object.data), 41) * 4000)
        let answer =
            configuration.discernerResponseFormat.hasPrefix("2")
            ? scene.formatTwo(imageKey: imageKey, processingMilliseconds: milliseconds, width: facts.width, height: facts.height)
            : scene.formatThree(imageKey: imageKey, processingMilliseconds: milliseconds)
        let reply = Reply.jsonData([
            "success": true, "execution_arn": arn, "execution_name": execution,
            "analysis_result": ["statusCode": 200, "body": answer],
            "processing_time_seconds": 8
        ])
        if configuration.recordsAnswers {
            await faults.stats.recordAnswer(correlationID: request.header("X-Correlation-ID"), .init(body: reply, imageBytes: object.data.count))
        }
        return Reply.json(.ok, data: reply)
    }

    /// The JSON around the base64 image in the vision request (`{"requests": [{"image":
    /// {"content": "..."}, "features": [...]}]}`), as the service's gcp_rest_backend builds it.
    static let visionRequestOverhead = 160

    private func failedExecution(_ arn: String, cause: String) -> Response {
        Reply.json(
            .internalServerError,
            [
                "success": false, "error": "Step Functions execution failed", "execution_arn": arn, "cause": cause
            ])
    }

    private var signer: SigV4 {
        SigV4(
            accessKeyID: configuration.accessKeyID, secretAccessKey: configuration.secretAccessKey,
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
