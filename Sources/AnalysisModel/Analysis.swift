/// What a service found in one job's input: the common fields every service fills (or leaves
/// nil), the entities (Image Discerner can report several), per-service detail and the raw
/// answer. Service clients return it; the completer stores it with what preparation did.
public struct Analysis: Sendable, Equatable {
    public var category: String?
    public var subcategory: String?
    public var serviceOperator: String?
    public var fleetID: String?
    public var licensePlate: String?
    public var confidence: Double?
    public var textIdentifiers: [String]
    public var description: String?
    /// What the answer amounts to, in a word a dashboard can group by (match, no_face, unsure, ...).
    public var outcome: String?
    /// Who or what was recognised: a template id, a person id, a landmark label.
    public var subjectID: String?
    /// Per-service structured detail, as a JSON object.
    public var detailsJSON: String
    /// Calls made to the service for this attempt, retries included.
    public var apiCalls: Int
    /// The service's answer, verbatim JSON.
    public var rawResponseJSON: String
    /// Every entity the service reported (Image Discerner), primary first marked; stored in
    /// `discern.entities`.
    public var entities: [Entity]
    /// Which model, version, deployment and settings produced this answer.
    public var provenance: Provenance

    public init(
        category: String? = nil, subcategory: String? = nil, serviceOperator: String? = nil,
        fleetID: String? = nil, licensePlate: String? = nil, confidence: Double? = nil,
        textIdentifiers: [String] = [], description: String? = nil, outcome: String? = nil,
        subjectID: String? = nil, detailsJSON: String = "{}", apiCalls: Int = 0, rawResponseJSON: String,
        entities: [Entity] = [], provenance: Provenance = Provenance()
    ) {
        self.category = category
        self.subcategory = subcategory
        self.serviceOperator = serviceOperator
        self.fleetID = fleetID
        self.licensePlate = licensePlate
        self.confidence = confidence
        self.textIdentifiers = textIdentifiers
        self.description = description
        self.outcome = outcome
        self.subjectID = subjectID
        self.detailsJSON = detailsJSON
        self.apiCalls = apiCalls
        self.rawResponseJSON = rawResponseJSON
        self.entities = entities
        self.provenance = provenance
    }
}
