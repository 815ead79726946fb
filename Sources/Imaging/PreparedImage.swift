import Foundation
import MediaFiles

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

    /// The size of what is sent.
    public let bytes: Int

    public init(
        data: Data, format: ImageFormat, width: Int, height: Int, original: SourceFacts, quality: Int?,
        encodeCount: Int, passedThrough: Bool, milliseconds: Double, decision: String, bytes: Int? = nil
    ) {
        self.data = data
        self.format = format
        self.width = width
        self.height = height
        self.original = original
        self.quality = quality
        self.encodeCount = encodeCount
        self.passedThrough = passedThrough
        self.milliseconds = milliseconds
        self.decision = decision
        self.bytes = bytes ?? data.count
    }

    /// The same facts without the pixels, for reports.
    public var withoutData: PreparedImage {
        PreparedImage(
            data: Data(), format: format, width: width, height: height, original: original, quality: quality,
            encodeCount: encodeCount, passedThrough: passedThrough, milliseconds: milliseconds, decision: decision,
            bytes: bytes)
    }
}

/// What the header said about the original.
public struct SourceFacts: Sendable, Equatable {
    public let bytes: Int
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let orientation: Int
    public let hasAlpha: Bool
    public let isEightBit: Bool
    /// sRGB or greyscale: what every service decodes the same way.
    public let isPlainColour: Bool
}
