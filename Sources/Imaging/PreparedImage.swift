import Foundation

/// The bytes to send and what was done to get them.
public struct PreparedImage: Sendable {
    public let data: Data
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let original: SourceFacts
    /// The JPEG quality of the encode that was kept; nil when passed through.
    public let quality: Int?
    public let encodeCount: Int
    public let passedThrough: Bool
    public let milliseconds: Double
    /// What was decided, for a person reading `discern prepare`.
    public let decision: String

    public var bytes: Int { data.count }
}

/// What the header said about the original.
public struct SourceFacts: Sendable, Equatable {
    public let bytes: Int
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let orientation: Int
}
