/// What a target service accepts, and the limits discern applies before doing any work.
public struct ImagePolicy: Sendable, Equatable {
    /// The largest file the service should receive.
    public var maxBytes: Int
    /// The longest side the service should receive; nil for no limit.
    public var maxDimension: Int?
    /// The shortest side below which the image is refused (services cannot use it).
    public var minDimension: Int
    /// Formats the service takes as they are; anything else is re-encoded.
    public var acceptedFormats: Set<ImageFormat>
    /// Decompression-bomb guard: images declaring more pixels are refused from the header.
    public var maxSourcePixels: Int
    /// Files larger than this are refused before they are read.
    public var maxSourceBytes: Int
    /// The JPEG quality tried first, and the lowest one accepted before downscaling.
    public var quality: Int
    public var minQuality: Int

    public init(maxBytes: Int = 10_000_000, maxDimension: Int? = 4096, minDimension: Int = 16,
                acceptedFormats: Set<ImageFormat> = [.jpeg, .png], maxSourcePixels: Int = 120_000_000,
                maxSourceBytes: Int = 250_000_000, quality: Int = 85, minQuality: Int = 50) {
        self.maxBytes = maxBytes
        self.maxDimension = maxDimension
        self.minDimension = minDimension
        self.acceptedFormats = acceptedFormats
        self.maxSourcePixels = maxSourcePixels
        self.maxSourceBytes = maxSourceBytes
        self.quality = quality
        self.minQuality = minQuality
    }

    /// Image Discerner: 10 MB recommended, JPEG and PNG uploads.
    public static let discerner = ImagePolicy()
}
