import CurlHTTP
import Foundation

/// The person group an identify runs against, and the recognition model it was built with.
///
/// Identify only works on faceIds detected with the group's own recognition model (otherwise
/// Azure answers 400 BadArgument), so the group is asked once per process
/// (`GET /persongroups/{id}?returnRecognitionModel=true`, or `/largepersongroups/{id}`) and
/// detect uses what it says (docs/services.md, "Azure Face").
struct AzurePersonGroup: Hashable, Sendable {
    let id: String
    let isLarge: Bool

    /// The identify body's key for this group.
    var bodyKey: String { isLarge ? "largePersonGroupId" : "personGroupId" }
    var path: String { isLarge ? "largepersongroups" : "persongroups" }

    /// Azure's ids: lower-case letters, digits, '-' and '_', at most 64. Checked before the id
    /// goes into a URL path.
    init(id: String, isLarge: Bool) throws(ServiceError) {
        guard (1...64).contains(id.count),
            id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else {
            throw ServiceError(
                .badParams, "Azure person group ids are 1-64 lower-case letters, digits, '-' or '_'; got \(UntrustedJSON.bounded(id, 80))")
        }
        self.id = id
        self.isLarge = isLarge
    }
}

/// Recognition models of person groups, asked once per group per process.
actor AzureGroupModels {
    private var known: [AzurePersonGroup: String] = [:]

    func model(of group: AzurePersonGroup) -> String? { known[group] }
    func remember(_ model: String, of group: AzurePersonGroup) { known[group] = model }
}

extension AzureFaceClient {
    /// The group's recognition model, from the cache or from the service. A group that answers
    /// without one (an old API version) is taken to use the configured model.
    func recognitionModel(of group: AzurePersonGroup, _ conversation: inout Conversation) async throws(ServiceError) -> String {
        if let model = await groupModels.model(of: group) { return model }
        let step = "Azure Face person group \(group.id)"
        let request = HTTPRequest(
            method: "GET", url: "\(base)/\(group.path)/\(group.id)?returnRecognitionModel=true",
            headers: [keyHeader], timeoutSeconds: configuration.requestTimeoutSeconds)
        let fallback = configuration.recognitionModel
        let model = try await conversation.send(request, step: step, limitKey: Self.limitKey) { response throws(ServiceError) -> String in
            guard response.status == 200 else { throw AzureFaceResponse.failure(response, step: step) }
            guard let object = UntrustedJSON.parse(response.body) else {
                throw ServiceError(.badResponse, "\(step) answered 200 with a body that is not a JSON object: \(response.bodySnippet)")
            }
            return object.string("recognitionModel", maxLength: 32) ?? fallback
        }
        guard AzureFaceClient.recognitionModels.contains(model) else {
            throw ServiceError(.serviceIncompatible, "\(step) uses recognition model \(model), which discern does not know")
        }
        await groupModels.remember(model, of: group)
        return model
    }
}
