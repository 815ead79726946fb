import AnalysisModel

/// One row of `discern.results`: what the service found (its `Analysis`), and what preparation
/// did. The completer composes it; service clients never see it.
public struct JobResult: Sendable, Equatable {
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
        /// The policy's byte budget the bytes sent had to fit (nil: nothing was sent).
        public var byteBudget: Int?
        /// The rest of the policy that shaped them, as a JSON object (dimensions, formats, qualities).
        public var policyJSON: String

        public init(
            originalBytes: Int, originalWidth: Int, originalHeight: Int, originalFormat: String,
            sentBytes: Int, sentWidth: Int, sentHeight: Int, sentFormat: String,
            jpegQuality: Int?, encodeCount: Int, passedThrough: Bool, milliseconds: Double,
            byteBudget: Int? = nil, policyJSON: String = "{}"
        ) {
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
            self.byteBudget = byteBudget
            self.policyJSON = policyJSON
        }
    }

    public var analysis: Analysis
    public var preparation: Preparation
    public var analyzeMilliseconds: Double
    /// The discern that wrote it (`BuildInfo.version` of the worker).
    public var release: String?

    public init(analysis: Analysis, preparation: Preparation, analyzeMilliseconds: Double, release: String? = nil) {
        self.analysis = analysis
        self.preparation = preparation
        self.analyzeMilliseconds = analyzeMilliseconds
        self.release = release
    }

    /// `results.provenance`: what the answer and the request said beside the model (the
    /// service's own details), and the preparation policy the bytes sent were made under, as
    /// `preparation`. Both are JSON objects already (written by JSONSerialization), so they are
    /// joined as text: a parse and a write per result cost the completer a tenth of its
    /// throughput (bench/RESULTS.md, "Queue A/B").
    var provenanceJSON: String {
        let details = Self.object(analysis.provenance.detailsJSON), policy = Self.object(preparation.policyJSON)
        guard policy != "{}" else { return details }
        return details == "{}" ? "{\"preparation\":\(policy)}" : "{\"preparation\":\(policy),\(details.dropFirst())"
    }

    /// `text` when it is written as a JSON object, else an empty one (what the column holds then).
    private static func object(_ text: String) -> String {
        text.first == "{" && text.last == "}" ? text : "{}"
    }
}
