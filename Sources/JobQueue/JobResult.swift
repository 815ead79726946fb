/// One row of `discern.results`: the analysis in the common columns, the raw answer, and
/// what image preparation did.
public struct JobResult: Sendable, Equatable {
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

        public init(category: String? = nil, subcategory: String? = nil, serviceOperator: String? = nil,
                    fleetID: String? = nil, licensePlate: String? = nil, confidence: Double? = nil,
                    textIdentifiers: [String] = [], description: String? = nil, outcome: String? = nil,
                    subjectID: String? = nil, detailsJSON: String = "{}", apiCalls: Int = 0, rawResponseJSON: String,
                    entities: [Entity] = []) {
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
        }
    }

    public struct Preparation: Sendable, Equatable {
        public var originalBytes: Int
        public var originalWidth: Int
        public var originalHeight: Int
        public var originalFormat: String
        public var sentBytes: Int
        public var sentWidth: Int
        public var sentHeight: Int
        public var sentFormat: String
        public var jpegQuality: Int?
        public var encodeCount: Int
        public var passedThrough: Bool
        public var milliseconds: Double

        public init(originalBytes: Int, originalWidth: Int, originalHeight: Int, originalFormat: String,
                    sentBytes: Int, sentWidth: Int, sentHeight: Int, sentFormat: String,
                    jpegQuality: Int?, encodeCount: Int, passedThrough: Bool, milliseconds: Double) {
            self.originalBytes = originalBytes
            self.originalWidth = originalWidth
            self.originalHeight = originalHeight
            self.originalFormat = originalFormat
            self.sentBytes = sentBytes
            self.sentWidth = sentWidth
            self.sentHeight = sentHeight
            self.sentFormat = sentFormat
            self.jpegQuality = jpegQuality
            self.encodeCount = encodeCount
            self.passedThrough = passedThrough
            self.milliseconds = milliseconds
        }
    }

    public var analysis: Analysis
    public var preparation: Preparation
    public var analyzeMilliseconds: Double

    public init(analysis: Analysis, preparation: Preparation, analyzeMilliseconds: Double) {
        self.analysis = analysis
        self.preparation = preparation
        self.analyzeMilliseconds = analyzeMilliseconds
    }
}
