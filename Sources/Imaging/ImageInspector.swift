import MediaFiles
import DedicatedThreads
import CVips
import CVipsShim
import Foundation

/// Checks that bytes are a complete, decodable image, as a remote service would on receipt.
/// Blocking: call from a dedicated thread.
public enum ImageInspector {
    public struct Facts: Sendable {
        public let format: ImageFormat
        public let width: Int
        public let height: Int
        public let bands: Int
        public let isEightBit: Bool
        public let isSRGB: Bool
        public let orientation: Int
        /// The standard deviation of a small thumbnail's pixels: near 0 for a flat image.
        public let deviation: Double
    }

    public static func inspect(_ data: Data, maxPixels: Int = 120_000_000) throws(ImagingError) -> Facts {
        BlockingCallAudit.check("libvips inspect")
        try Vips.initialize()
        guard let format = ImageFormat.sniff(data) else {
            throw ImagingError(.unsupportedFormat, "not a JPEG, PNG, WebP, TIFF, HEIF or GIF file")
        }
        let input = ImageInput.memory(data)
        guard let image = input.header() else {
            throw ImagingError(.undecodable, "cannot read the \(format.rawValue) header: \(Vips.takeError())")
        }
        guard image.width * image.height <= maxPixels else {
            throw ImagingError(.tooManyPixels, "\(image.width)x\(image.height) is over \(maxPixels) pixels")
        }
        // Decoding a small thumbnail still reads every byte of the file, so truncation shows.
        guard let thumbnail = input.thumbnail(box: 64) else {
            throw ImagingError(.undecodable, "cannot decode the \(format.rawValue) image: \(Vips.takeError())")
        }
        let decoded = try thumbnail.inMemory()
        var deviation = 0.0
        guard cvipsshim_deviate(decoded.pointer, &deviation) == 0 else {
            throw ImagingError(.undecodable, "cannot measure the \(format.rawValue) image: \(Vips.takeError())")
        }
        return Facts(
            format: format, width: image.width, height: image.height, bands: image.bands,
            isEightBit: image.bandFormat == VIPS_FORMAT_UCHAR,
            isSRGB: image.interpretation == VIPS_INTERPRETATION_sRGB, orientation: image.orientation, deviation: deviation)
    }
}
