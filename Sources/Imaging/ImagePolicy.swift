import MediaFiles

/// What a target service accepts, and the limits discern applies before doing any work.
public struct ImagePolicy: Sendable, Equatable {
    /// The largest file the service should receive.
    public var maxBytes: Int
    /// The smallest file the service accepts (Azure Face: 1 KB); 0 for no floor.
    public var minBytes: Int
    /// The longest side the service should receive; nil for no limit.
    public var maxDimension: Int?
    /// When an image must be re-encoded anyway, how small its longest side may become by a
    /// JPEG's free 1/2, 1/4 or 1/8 decode: the least the service can still use. nil: no such
    /// shrinking below the limit.
    public var transformFloor: Int? = nil
    /// The shortest side below which the image is refused (services cannot use it).
    public var minDimension: Int
    /// Formats the service takes as they are; anything else is re-encoded as JPEG.
    public var acceptedFormats: Set<ImageFormat>
    /// Decompression-bomb guard: images declaring more pixels are refused from the header.
    public var maxSourcePixels: Int
    /// Files larger than this are refused before they are read.
    public var maxSourceBytes: Int
    /// The JPEG quality tried first, and the lowest one accepted before downscaling.
    public var quality: Int
    public var minQuality: Int
    /// Send EXIF (GPS included), comments and other metadata along. Off: only pixels leave,
    /// and what decoders need to show them (colour profile).
    public var keepMetadata: Bool = false

    public init(
        maxBytes: Int = 10_000_000, minBytes: Int = 0, maxDimension: Int? = 4096, minDimension: Int = 16,
        acceptedFormats: Set<ImageFormat> = [.jpeg, .png], maxSourcePixels: Int = 120_000_000,
        maxSourceBytes: Int = 250_000_000, quality: Int = 85, minQuality: Int = 70
    ) {
        self.maxBytes = maxBytes
        self.minBytes = minBytes
        self.maxDimension = maxDimension
        self.minDimension = minDimension
        self.acceptedFormats = acceptedFormats
        self.maxSourcePixels = maxSourcePixels
        self.maxSourceBytes = maxSourceBytes
        self.quality = quality
        self.minQuality = minQuality
    }
}
