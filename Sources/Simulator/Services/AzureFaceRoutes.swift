import DedicatedThreads
import Foundation
import Hummingbird

/// Azure Face v1.0 (docs/services.md, "Azure Face") under `/azure/face/v1.0`: detect, identify, person-group
/// reads and person deletes (a deleted person is never a candidate again; deleting it twice is
/// 404 PersonNotFound, as Azure answers), with the documented errors and limits: 20 calls a minute (free tier) answered with
/// the documented 429; `[]` for an image without a face (a flat one); faceIds that expire after
/// `faceIdTimeToLive`; identify refused when the faceId was detected with another recognition
/// model than the group's.
struct AzureFaceRoutes: Sendable {
    let configuration: SimulatorConfiguration
    let faults: FaultInjector
    let decoder: ThreadPool
    let detected = DetectedFaces()
    let deleted = DeletedPersons()
    let windows = CallWindows()

    /// The simulated groups: trained with recognition_02 (as the seed's), untrained, still
    /// training, and one large group with recognition_03. Any other id is not found.
    static let groups: [String: (model: String, state: String)] = [
        "persongroups/discern-sim": ("recognition_02", "trained"),
        "persongroups/discern-sim-untrained": ("recognition_04", "untrained"),
        "persongroups/discern-sim-training": ("recognition_04", "training"),
        "largepersongroups/discern-sim-large": ("recognition_03", "trained")
    ]
    static let freeTierCallsPerMinute = 20

    /// faceIds handed out by detect: the image they came from, the model, when they expire.
    actor DetectedFaces {
        struct Face { let seed: UInt64; let model: String; let expires: Date }
        var faces: [String: Face] = [:]
        func add(_ id: String, _ face: Face) { faces[id] = face }
        func face(_ id: String) -> Face? { faces[id] }
    }

    /// Persons deleted from their groups (every other well-formed id is a person of its group).
    actor DeletedPersons {
        var ids: Set<String> = []
        func delete(_ id: String) -> Bool { ids.insert(id).inserted }
        func contains(_ id: String) -> Bool { ids.contains(id) }
    }

    func register(on router: Router<BasicRequestContext>) {
        let base = "/azure/face/v1.0"
        router.post("\(base)/detect") { request, _ in
            try await faults.guarded("azure-face", route: "azure.detect", style: .azure, request) {
                try await limited(request) { try await detect($0) }
            }
        }
        router.post("\(base)/identify") { request, _ in
            try await faults.guarded("azure-face", route: "azure.identify", style: .azure, request) {
                try await limited(request) { try await identify($0) }
            }
        }
        for kind in ["persongroups", "largepersongroups"] {
            router.get("\(base)/\(kind)/:id") { request, context in
                try await faults.guarded("azure-face", route: "azure.group", style: .azure, request) {
                    try await limited(request) { group($0, path: "\(kind)/\(context.parameters.get("id") ?? "")") }
                }
            }
            router.delete("\(base)/\(kind)/:id/persons/:person") { request, context in
                try await faults.guarded("azure-face", route: "azure.delete", style: .azure, request) {
                    try await limited(request) { _ in
                        await deletePerson(group: "\(kind)/\(context.parameters.get("id") ?? "")", person: context.parameters.get("person") ?? "")
                    }
                }
            }
        }
    }

    /// Every call needs the key and counts against the per-minute limit.
    private func limited(_ request: Request, _ handler: (Request) async throws -> Response) async throws -> Response {
        guard request.header("Ocp-Apim-Subscription-Key") == configuration.credentials.azureFaceKey else {
            return error(.unauthorized, "401", "Access denied due to invalid subscription key or wrong API endpoint.")
        }
        if configuration.throughputLimits,
            let wait = await windows.admit("key", limit: Self.freeTierCallsPerMinute, per: 60, at: request.arrival(configuration))
        {
            await faults.stats.recordRefusal("azure-face.429")
            return error(.tooManyRequests, "429", "Rate limit is exceeded. Try again in \(max(1, Int(wait.rounded(.up)))) seconds.")
        }
        return try await handler(request)
    }

    private func group(_ request: Request, path: String) -> Response {
        guard let group = Self.groups[path] else { return error(.notFound, "PersonGroupNotFound", "Person group is not found.") }
        var answer: [String: Any] = ["personGroupId": String(path.split(separator: "/").last ?? ""), "name": "simulated", "userData": NSNull()]
        if request.uri.queryParameters.get("returnRecognitionModel") == "true" { answer["recognitionModel"] = group.model }
        return Reply.json(.ok, answer)
    }

    private func deletePerson(group: String, person: String) async -> Response {
        guard Self.groups[group] != nil else { return error(.notFound, "PersonGroupNotFound", "Person group is not found.") }
        guard person.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) != nil, await deleted.delete(person) else {
            return error(.notFound, "PersonNotFound", "Person is not found.")
        }
        return Response(status: .ok)
    }

    private func detect(_ request: Request) async throws -> Response {
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/octet-stream") == true else {
            return error(.badRequest, "BadArgument", "Invalid Media Type.")
        }
        let query = request.uri.queryParameters
        // recognition_01 is Azure's default when the parameter is left out.
        let model = query.get("recognitionModel") ?? "recognition_01"
        guard ["recognition_01", "recognition_02", "recognition_03", "recognition_04"].contains(model) else {
            return error(.badRequest, "BadArgument", "Invalid recognition model.")
        }
        if let detection = query.get("detectionModel"), !["detection_01", "detection_02", "detection_03"].contains(detection) {
            return error(.badRequest, "BadArgument", "Invalid detection model.")
        }
        let ttl = query.get("faceIdTimeToLive").map { Int($0) ?? -1 } ?? 86400
        guard (60...86400).contains(ttl) else {
            return error(.badRequest, "BadArgument", "'faceIdTimeToLive' is invalid, it should be in range [60, 86400].")
        }
        var request = request
        guard let body = await request.data(upTo: 6 * 1024 * 1024), body.count >= 1024 else {
            return error(.badRequest, "InvalidImageSize", "Image size is too small or too big.")
        }
        guard [.jpeg, .png, .gif, .bmp].contains(SimulatedImage.Format.sniff(body)),
            let image = await SimulatedImage.inspect(body, on: decoder)
        else {
            return error(.badRequest, "InvalidImage", "Decoding error, image format unsupported.")
        }
        // A flat image shows nobody.
        guard image.facts.deviation >= SimulatedImage.flatDeviation else { return Reply.json(.ok, [[String: Any]]()) }
        let id = UUID().uuidString.lowercased()
        await detected.add(id, .init(seed: image.seed, model: model, expires: configuration.clock().addingTimeInterval(Double(ttl))))
        let side = min(image.facts.width, image.facts.height) / 2
        return Reply.json(
            .ok,
            [
                [
                    "faceId": id,
                    "faceRectangle": ["top": image.facts.height / 4, "left": image.facts.width / 4, "width": side, "height": side]
                ]
            ])
    }

    private func identify(_ request: Request) async throws -> Response {
        var request = request
        let body = await request.data(upTo: 64 * 1024) ?? Data()
        guard let fields = Reply.jsonObject(ByteBuffer(bytes: body)) else { return error(.badRequest, "BadArgument", "Request body is invalid.") }
        let personGroup = fields["personGroupId"] as? String, large = fields["largePersonGroupId"] as? String
        guard let id = personGroup ?? large, (personGroup == nil) != (large == nil) else {
            return error(.badRequest, "BadArgument", "Exactly one of personGroupId and largePersonGroupId must be given.")
        }
        guard let faceIDs = fields["faceIds"] as? [String], (1...10).contains(faceIDs.count) else {
            return error(.badRequest, "BadArgument", "Face ID count should be between 1 and 10.")
        }
        guard let group = Self.groups["\(large == nil ? "persongroups" : "largepersongroups")/\(id)"] else {
            return error(.badRequest, "PersonGroupNotFound", "Person group is not found.")
        }
        switch group.state {
        case "untrained": return error(.badRequest, "PersonGroupNotTrained", "Person group not trained.")
        case "training": return error(.conflict, "PersonGroupTrainingNotFinished", "Person group is under training.")
        default: break
        }
        let maxCandidates = (fields["maxNumOfCandidatesReturned"] as? Int) ?? 10
        var answers: [[String: Any]] = []
        for faceID in faceIDs {
            guard let face = await detected.face(faceID), face.expires > configuration.clock() else {
                return error(.badRequest, "FaceNotFound", "Face is not found.")
            }
            guard face.model == group.model else {
                return error(
                    .badRequest, "BadArgument",
                    "The recognition model of the face '\(face.model)' does not match the person group's '\(group.model)'.")
            }
            // One face in five matches nobody; the others match one person, not always surely.
            var candidates: [[String: Any]] = []
            let person = String(format: "%08x-0000-4000-8000-%012llx", UInt32(truncatingIfNeeded: face.seed >> 32), face.seed & 0xFFFF_FFFF_FFFF)
            if SimulatedImage.fraction(of: face.seed, 11) >= 0.2, await !deleted.contains(person) {
                candidates.append([
                    "personId": person, "confidence": ((0.6 + SimulatedImage.fraction(of: face.seed, 12) * 0.39) * 100).rounded() / 100
                ])
            }
            answers.append(["faceId": faceID, "candidates": Array(candidates.prefix(max(1, maxCandidates)))])
        }
        return Reply.json(.ok, answers)
    }

    private func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        Reply.json(status, ["error": ["code": code, "message": message]])
    }
}
