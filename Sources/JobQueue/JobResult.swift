import AnalysisModel

/// One row of `discern.results`: what the service found (its `Analysis`), and what preparation
/// did. The completer composes it; backends never see it.
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

        public init(
            originalBytes: Int, originalWidth: Int, originalHeight: Int, originalFormat: String,
            sentBytes: Int, sentWidth: Int, sentHeight: Int, sentFormat: String,
            jpegQuality: Int?, encodeCount: Int, passedThrough: Bool, milliseconds: Double
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
