/// One thing a service found in an image: a vehicle, a container, an aircraft. A row of
/// `discern.entities` (sql/schema.sql).
public struct Entity: Sendable, Equatable {
    /// The service's type, verbatim: `commercial_vehicle:van`, `cargo_container`.
    public var type: String
    /// `type` before its first colon, and after it (nil without a colon).
    public var category: String
    public var subtype: String?
    public var serviceOperator: String?
    /// The first identifier of each kind; `identifiers` keeps all of them as written.
    public var fleetID: String?
    public var licensePlate: String?
    public var licensePlateJurisdiction: String?
    public var containerID: String?
    public var tailID: String?
    public var otherIDs: [String]
    public var identifiers: [String]
    public var confidence: Double?
    /// Free-form properties as a JSON object (`{"size_code": "45G1"}`).
    public var propertiesJSON: String
    /// The entity whose fields fill the result row's common columns.
    public var isPrimary: Bool

    public init(
        type: String, category: String, subtype: String? = nil, serviceOperator: String? = nil, fleetID: String? = nil,
        licensePlate: String? = nil, licensePlateJurisdiction: String? = nil, containerID: String? = nil,
        tailID: String? = nil, otherIDs: [String] = [], identifiers: [String] = [], confidence: Double? = nil,
        propertiesJSON: String = "{}", isPrimary: Bool = false
    ) {
        self.type = type
        self.category = category
        self.subtype = subtype
        self.serviceOperator = serviceOperator
        self.fleetID = fleetID
        self.licensePlate = licensePlate
        self.licensePlateJurisdiction = licensePlateJurisdiction
        self.containerID = containerID
        self.tailID = tailID
        self.otherIDs = otherIDs
        self.identifiers = identifiers
        self.confidence = confidence
        self.propertiesJSON = propertiesJSON
        self.isPrimary = isPrimary
    }
}
