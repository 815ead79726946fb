import DedicatedThreads
import Foundation
import Hummingbird
import Imaging

/// Azure Face v1.0 (contracts.md §3) under `/azure/face/v1.0`: detect and identify, with the
/// documented errors. Person groups: `discern-sim` (trained), `discern-sim-untrained`,
/// `discern-sim-training` (training not finished); any other id is not found.
struct AzureFaceRoutes: Sendable {
    let configuration: SimulatorConfiguration
    let faults: FaultInjector
    let decoder: ThreadPool
    let detected = DetectedFaces()

    /// faceIds handed out by detect, with the image seed they came from.
    actor DetectedFaces {
        var faces: [String: UInt64] = [:]
        func add(_ id: String, seed: UInt64) { faces[id] = seed }
        func seed(_ id: String) -> UInt64? { faces[id] }
    }

    func register(on router: Router<BasicRequestContext>) {
        let base = "/azure/face/v1.0"
        router.post("\(base)/detect") { request, _ in
            try await faults.guarded("azure-face", route: "azure.detect", style: .azure, request) { try await detect(request) }
        }
        router.post("\(base)/identify") { request, _ in
            try await faults.guarded("azure-face", route: "azure.identify", style: .azure, request) { try await identify(request) }
        }
    }

    private func detect(_ request: Request) async throws -> Response {
        if let refused = unauthorized(request) { return refused }
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/octet-stream") == true else {
            return error(.badRequest, "BadArgument", "Invalid Media Type.")
        }
        let query = request.uri.queryParameters
        if let model = query.get("recognitionModel"), !["recognition_01", "recognition_02", "recognition_03", "recognition_04"].contains(model) {
            return error(.badRequest, "BadArgument", "Invalid recognition model.")
        }
        if let model = query.get("detectionModel"), !["detection_01", "detection_02", "detection_03"].contains(model) {
            return error(.badRequest, "BadArgument", "Invalid detection model.")
        }
        var request = request
        guard let body = await request.data(upTo: 6 * 1024 * 1024), body.count >= 1024 else {
            return error(.badRequest, "InvalidImageSize", "Image size is too small or too big.")
        }
        guard [.jpeg, .png, .gif].contains(ImageFormat.sniff(body)) || body.starts(with: Data("BM".utf8)),
              let image = await SimulatedImage.inspect(body, on: decoder) else {
            return error(.badRequest, "InvalidImage", "Decoding error, image format unsupported.")
        }
        let id = UUID().uuidString.lowercased()
        await detected.add(id, seed: image.seed)
        let side = min(image.facts.width, image.facts.height) / 2
        return Reply.json(.ok, [[
            "faceId": id,
            "faceRectangle": ["top": image.facts.height / 4, "left": image.facts.width / 4, "width": side, "height": side],
        ]])
    }

    private func identify(_ request: Request) async throws -> Response {
        if let refused = unauthorized(request) { return refused }
        var request = request
        let body = await request.data(upTo: 64 * 1024) ?? Data()
        guard let fields = Reply.jsonObject(ByteBuffer(bytes: body)) else { return error(.badRequest, "BadArgument", "Request body is invalid.") }
        let group = fields["personGroupId"] as? String, large = fields["largePersonGroupId"] as? String
        guard (group == nil) != (large == nil) else {
            return error(.badRequest, "BadArgument", "Exactly one of personGroupId and largePersonGroupId must be given.")
        }
        guard let faceIDs = fields["faceIds"] as? [String], (1...10).contains(faceIDs.count) else {
            return error(.badRequest, "BadArgument", "Face ID count should be between 1 and 10.")
        }
        switch group ?? large! {
        case "discern-sim": break
        case "discern-sim-untrained": return error(.badRequest, "PersonGroupNotTrained", "Person group not trained.")
        case "discern-sim-training": return error(.conflict, "PersonGroupTrainingNotFinished", "Person group is under training.")
        default: return error(.badRequest, "PersonGroupNotFound", "Person group is not found.")
        }
        let maxCandidates = (fields["maxNumOfCandidatesReturned"] as? Int) ?? 10
        var answers: [[String: Any]] = []
        for id in faceIDs {
            guard let seed = await detected.seed(id) else { return error(.badRequest, "FaceNotFound", "Face is not found.") }
            // One face in five matches nobody; the others match one person, not always surely.
            var candidates: [[String: Any]] = []
            if SimulatedImage.fraction(of: seed, 11) >= 0.2 {
                let person = String(format: "%08x-0000-4000-8000-%012llx", UInt32(truncatingIfNeeded: seed >> 32), seed & 0xFFFF_FFFF_FFFF)
                candidates.append(["personId": person, "confidence": ((0.6 + SimulatedImage.fraction(of: seed, 12) * 0.39) * 100).rounded() / 100])
            }
            answers.append(["faceId": id, "candidates": Array(candidates.prefix(max(1, maxCandidates)))])
        }
        return Reply.json(.ok, answers)
    }

    private func unauthorized(_ request: Request) -> Response? {
        guard request.header("Ocp-Apim-Subscription-Key") != configuration.credentials.azureFaceKey else { return nil }
        return error(.unauthorized, "401", "Access denied due to invalid subscription key or wrong API endpoint.")
    }

    private func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        Reply.json(status, ["error": ["code": code, "message": message]])
    }
}
