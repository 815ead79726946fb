import CVips
import CVipsShim
import Foundation

/// Generates images with libvips itself: the demo's sample photos and the tests' fixtures.
public enum SampleImages {
    /// A photo-like JPEG: three Perlin-noise fields as colour channels, different per seed.
    public static func photo(width: Int, height: Int, seed: Int, quality: Int = 90) throws(ImagingError) -> Data {
        try Vips.initialize()
        let cell = max(16, min(width, height) / 6)
        let channels = try (0..<3).map { (channel) throws(ImagingError) -> VipsImage in
            try VipsImage.make("draw Perlin noise") {
                cvipsshim_perlin($0, Int32(width), Int32(height), Int32(cell), Int32(seed &* 7 &+ channel))
            }
        }
        let rgb = try VipsImage.make("join bands") {
            cvipsshim_bandjoin3(channels[0].pointer, channels[1].pointer, channels[2].pointer, $0)
        }
        let tagged = try rgb.map("mark as sRGB") { cvipsshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_sRGB) }
        return try tagged.jpeg(quality: quality)
    }

    /// A JPEG of Gaussian noise: it barely compresses, so it is large for its size — the way to
    /// make an image over a byte budget without making it enormous in pixels.
    public static func noise(width: Int, height: Int, quality: Int = 98) throws(ImagingError) -> Data {
        try Vips.initialize()
        let bands = try (0..<3).map { (_) throws(ImagingError) -> VipsImage in
            try VipsImage.make("draw noise") { cvipsshim_gaussnoise($0, Int32(width), Int32(height), 128, 60) }
        }
        let rgb = try VipsImage.make("join bands") {
            cvipsshim_bandjoin3(bands[0].pointer, bands[1].pointer, bands[2].pointer, $0)
        }
        let bytes = try rgb.map("convert to 8-bit") { cvipsshim_cast_uchar($0, $1) }
        let tagged = try bytes.map("mark as sRGB") { cvipsshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_sRGB) }
        return try tagged.jpeg(quality: quality)
    }
}
