import DedicatedThreads
import Foundation
import Hummingbird

/// OOTO Face API (docs/services.md, "OOTO Face") under `/ooto/api/v1.0`: add, identify, delete, with its
/// documented error codes. A gallery in memory: a photo identifies as the template it was
/// enrolled under; any other face finds no match. The simulator finds codes 5 and 6 in the
/// image itself: a flat image has no face (code 5, sent with HTTP 404), a panorama (twice as
/// wide as high) has several (code 6, sent with HTTP 422) — the service may send them with any
/// error status, so they do not come with 400 here.
struct OOTORoutes: Sendable {
    let configuration: SimulatorConfiguration
    let faults: FaultInjector
    let decoder: ThreadPool
    let gallery = Gallery()

    actor Gallery {
        var templates: [String: UInt64] = [:]
        func enroll(_ id: String, seed: UInt64) { templates[id] = seed }
        func find(_ seed: UInt64) -> String? { templates.first { $0.value == seed }?.key }
        func remove(_ id: String) -> Bool { templates.removeValue(forKey: id) != nil }
    }

    func register(on router: Router<BasicRequestContext>) {
        let base = "/ooto/api/v1.0"
        router.post("\(base)/add") { request, _ in
            try await faults.guarded("ooto", route: "ooto.add", request) { try await photo(request, enroll: true) }
        }
        router.post("\(base)/identify") { request, _ in
            try await faults.guarded("ooto", route: "ooto.identify", request) { try await photo(request, enroll: false) }
        }
        router.post("\(base)/delete") { request, _ in try await faults.guarded("ooto", route: "ooto.delete", request) { try await delete(request) } }
    }

    private func authorized(_ request: Request) -> Bool {
        request.header("APP-ID") == configuration.credentials.ootoAppID && request.header("APP-KEY") == configuration.credentials.ootoAppKey
    }

    private func photo(_ request: Request, enroll: Bool) async throws -> Response {
        guard authorized(request) else { return Reply.json(.unauthorized, ["message": "Invalid APP-ID or APP-KEY"]) }
        var request = request
        let body = await request.data(upTo: 64 * 1024 * 1024) ?? Data()
        guard let form = MultipartForm(contentType: request.header("Content-Type"), body: body), let photo = form["photo"] else {
            return error(1, "Empty photo")
        }
        guard !photo.data.isEmpty else { return error(3, "Photo has zero size") }
        let type = photo.contentType?.lowercased() ?? ""
        guard type == "image/jpeg" || type == "image/png" || type == "image/jpg",
            [.jpeg, .png].contains(SimulatedImage.Format.sniff(photo.data))
        else { return error(2, "Wrong mime type") }
        guard let image = await SimulatedImage.inspect(photo.data, on: decoder) else { return error(4, "Cannot decode image") }
        guard !image.isFlat else { return error(5, "No faces found", status: .notFound) }
        guard !image.isPanorama else { return error(6, "More than one face found", status: .unprocessableContent) }
        guard min(image.facts.width, image.facts.height) >= 200 else { return error(9, "Face too small") }
        let query = request.uri.queryParameters
        let liveness = query.get("check_liveness") == "true" ? ["score": 0.5 + image.fraction(7) / 2, "fine": true] as [String: Any] : nil
        let deepfake = query.get("check_deepfake") == "true" ? ["score": image.fraction(8) / 4, "fine": true] as [String: Any] : nil
        let box: [String: Any] = ["x": image.facts.width / 4, "y": image.facts.height / 5, "w": image.facts.width / 2, "h": image.facts.height / 2]
        var result: [String: Any]
        if enroll {
            let id = form["templateId"]?.text ?? UUID().uuidString.lowercased()
            await gallery.enroll(id, seed: image.seed)
            let quality: [String: Any] = ["score": 0.8 + image.fraction(3) / 5]
            result =
                configuration.ootoFlatShape ? ["templateId": id, "face": ["quality": quality]] : ["enroll": ["templateId": id], "quality": quality]
        } else {
            let match = await gallery.find(image.seed)
            let similarity = 0.9 + image.fraction(4) / 10
            if configuration.ootoFlatShape {
                result = match.map { ["templateId": $0, "similarity": similarity] } ?? [:]
                result["face"] = ["quality": ["score": 0.9]]
            } else {
                result = [
                    "search": match.map { ["templateId": $0, "similarity": similarity] as Any } ?? NSNull(), "box": box,
                    "landmarks": [[box["x"]!, box["y"]!]]
                ]
            }
        }
        if let liveness { result = merge(result, "liveness", liveness) }
        if let deepfake { result = merge(result, "deepfake", deepfake) }
        return Reply.json(.ok, ["transactionId": UUID().uuidString.lowercased(), "result": result])
    }

    /// Liveness and deepfake scores sit under `result.face` in the flat shape, in `result` otherwise.
    private func merge(_ result: [String: Any], _ key: String, _ value: [String: Any]) -> [String: Any] {
        var result = result
        if configuration.ootoFlatShape {
            var face = result["face"] as? [String: Any] ?? [:]
            face[key] = value
            result["face"] = face
        } else {
            result[key] = value
        }
        return result
    }

    private func delete(_ request: Request) async throws -> Response {
        guard authorized(request) else { return Reply.json(.unauthorized, ["message": "Invalid APP-ID or APP-KEY"]) }
        var request = request
        let body = await request.data(upTo: 64 * 1024) ?? Data()
        guard let id = Reply.jsonObject(ByteBuffer(bytes: body))?["templateId"] as? String, !id.isEmpty else {
            return error(1, "templateId is required")
        }
        guard await gallery.remove(id) else { return error(8, "Template not found") }
        return Reply.json(.ok, ["transactionId": UUID().uuidString.lowercased()])
    }

    private func error(_ code: Int, _ info: String, status: HTTPResponse.Status = .badRequest) -> Response {
        Reply.json(status, ["transactionId": UUID().uuidString.lowercased(), "result": ["status": "error", "code": code, "info": info]])
    }
}
