import DedicatedThreads
import Foundation
import Hummingbird

/// Unissey video-selfie liveness (docs/services.md, "Unissey") under `/unissey/api/v3`. Only fragments of
/// the real schema are public; where they are silent this simulator picks: errors are
/// `{"message": ...}` with 400 (bad form), 401 (key), 413 (over 20 MB).
struct UnisseyRoutes: Sendable {
    let configuration: SimulatorConfiguration
    let faults: FaultInjector

    static let maxVideoBytes = 20 * 1024 * 1024

    func register(on router: Router<BasicRequestContext>) {
        let base = "/unissey/api/v3"
        router.post("\(base)/analyze") { request, _ in
            try await faults.guarded("unissey", route: "unissey.analyze", request) { try await analyze(request) }
        }
        router.post("\(base)/iad/prepare") { request, _ in
            guard request.header("Authorization") == configuration.credentials.unisseyAPIKey else {
                return Reply.json(.unauthorized, ["message": "Unauthorized"])
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: UUID().uuidString.lowercased())))
        }
    }

    private func analyze(_ request: Request) async throws -> Response {
        // The key is sent as it is, without "Bearer".
        guard request.header("Authorization") == configuration.credentials.unisseyAPIKey else {
            return Reply.json(.unauthorized, ["message": "Unauthorized"])
        }
        var request = request
        guard let body = await request.data(upTo: Self.maxVideoBytes + 1024 * 1024) else {
            return Reply.json(.contentTooLarge, ["message": "Payload too large"])
        }
        guard let form = MultipartForm(contentType: request.header("Content-Type"), body: body), let selfie = form["selfie"], !selfie.data.isEmpty
        else {
            return Reply.json(.badRequest, ["message": "selfie is required"])
        }
        guard selfie.data.count <= Self.maxVideoBytes else { return Reply.json(.contentTooLarge, ["message": "Payload too large"]) }
        guard SimulatedVideo.check(selfie.data) != nil else {
            return Reply.json(.badRequest, ["message": "selfie is not a supported video"])
        }
        guard form["processings"]?.text.split(separator: ",").contains("liveness") == true else {
            return Reply.json(.badRequest, ["message": "processings must include liveness"])
        }
        guard form["gdpr-consent"]?.text == "true" else {
            return Reply.json(.badRequest, ["message": "gdpr-consent must be true"])
        }
        let seed = SimulatedImage.seed(of: selfie.data)
        let trust = (SimulatedImage.fraction(of: seed, 31) * 1000).rounded() / 1000
        // Injection-attack detection needs the capture SDK's metadata (seed 003 §4.6.3): without
        // it there is no injection verdict, only liveness.
        let metadata = form["selfie-metadata"] != nil || form["metadata"] != nil
        var answer: [String: Any] = ["request_id": UUID().uuidString.lowercased(), "is_genuine": trust >= 0.25, "metadata_received": metadata]
        answer["details"] = metadata ? ["injection": ["selfie": ["trust_score": trust]]] : [String: Any]()
        return Reply.json(.ok, answer)
    }
}
