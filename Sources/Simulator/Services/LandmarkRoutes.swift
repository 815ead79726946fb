import DedicatedThreads
import Foundation
import Hummingbird

/// The landmark predictor (docs/services.md, "Landmark predictor") under `/landmark/api/prediction`: predict (top 3),
/// history and health. No auth, no rate limit.
struct LandmarkRoutes: Sendable {
    let configuration: SimulatorConfiguration
    let faults: FaultInjector
    let decoder: ThreadPool
    let history = History()

    actor History {
        struct Entry: Sendable {
            let label: String
            let confidence: Double
            let timestamp: String
        }
        var entries: [Entry] = []
        func add(_ entry: Entry) {
            entries.insert(entry, at: 0)
            if entries.count > 100 { entries.removeLast() }
        }
        func latest(_ limit: Int) -> [Entry] { Array(entries.prefix(limit)) }
    }

    /// The seed's five labels (seed 001); answers carry labels only, as the service's do.
    static let labels = ["gediminas_tower", "vilnius_cathedral", "gate_of_dawn", "st_anne", "three_crosses"]

    func register(on router: Router<BasicRequestContext>) {
        let base = "/landmark/api/prediction"
        router.post("\(base)/predict") { request, _ in
            try await faults.guarded("landmark", route: "landmark.predict", request) { try await predict(request) }
        }
        router.get("\(base)/history") { request, _ in
            let limit = request.uri.queryParameters.get("limit").flatMap(Int.init) ?? 20
            let entries = await history.latest(max(1, min(limit, 100)))
            return Reply.json(.ok, entries.map { ["label": $0.label, "confidence": $0.confidence, "timestamp": $0.timestamp] })
        }
        router.get("\(base)/health") { _, _ in
            Reply.json(.ok, ["status": "healthy", "timestamp": ISO8601DateFormatter().string(from: Date())])
        }
    }

    private func predict(_ request: Request) async throws -> Response {
        var request = request
        guard let body = await request.data(upTo: 64 * 1024 * 1024),
            let form = MultipartForm(contentType: request.header("Content-Type"), body: body),
            let file = form["imageFile"], !file.data.isEmpty
        else {
            return Reply.json(.badRequest, ["error": "No image file provided"])
        }
        let name = (file.filename ?? "").lowercased()
        guard [".jpg", ".jpeg", ".png"].contains(where: name.hasSuffix) else {
            return Reply.json(.badRequest, ["error": "Invalid file type. Only JPG and PNG are supported."])
        }
        guard file.data.count <= 10 * 1024 * 1024 else {
            return Reply.json(.badRequest, ["error": "File size exceeds 10MB limit"])
        }
        guard let image = await SimulatedImage.inspect(file.data, on: decoder) else {
            return Reply.json(.internalServerError, ["error": "An error occurred during prediction", "details": "cannot identify image file"])
        }
        let first = Int(image.seed % UInt64(Self.labels.count))
        let top = 0.3 + image.fraction(21) * 0.68
        let second = top * (0.2 + image.fraction(22) * 0.5)
        let third = second * (0.2 + image.fraction(23) * 0.6)
        let predictions: [[String: Any]] = [top, second, third].enumerated().map { rank, confidence in
            let label = Self.labels[(first + rank * 2) % Self.labels.count]
            return ["label": label, "confidence": (confidence * 10000).rounded() / 10000, "rank": rank + 1]
        }
        let best = Self.labels[first]
        await history.add(.init(label: best, confidence: (top * 10000).rounded() / 10000, timestamp: ISO8601DateFormatter().string(from: Date())))
        return Reply.json(.ok, ["predictions": predictions, "inferenceTimeMs": 40 + Int(image.fraction(24) * 80)])
    }
}
