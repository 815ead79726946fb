/// Which service, model and settings produced an answer, as far as the answer itself and the
/// request say: what a dashboard filters on when a service changes under it (a new provider, a
/// new response format, another recognition model). Each service's fields are in
/// docs/services.md, "Provenance".
public struct Provenance: Sendable, Equatable {
    /// The model or provider the answer names (Image Discerner's `classification_provider`),
    /// or the one the request used (Azure Face's recognition model); nil when neither says.
    public var model: String?
    /// The version of the answer's form or of the service's API (Image Discerner's
    /// `response_format_version`, `face/v1.0`).
    public var modelVersion: String?
    /// The host of the endpoint that answered: which deployment (never a user, a path's query
    /// or a key).
    public var serviceHost: String?
    /// What else changes an answer, as a JSON object: the request's settings (thresholds, the
    /// person group, the action) and the answer's other identifiers.
    public var detailsJSON: String

    public init(model: String? = nil, modelVersion: String? = nil, serviceHost: String? = nil, detailsJSON: String = "{}") {
        self.model = model
        self.modelVersion = modelVersion
        self.serviceHost = serviceHost
        self.detailsJSON = detailsJSON
    }
}
