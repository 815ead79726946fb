import CVips
import CVipsShim
import CVipsSampleShim
import Foundation
import Imaging

/// Generates images with libvips itself: the demo's sample photos, benchmark sets and test
/// fixtures.
public enum SampleImages {
    /// A photo-like JPEG: three Perlin-noise fields as colour channels, different per seed.
    /// `grain` adds Gaussian noise (sigma, in grey levels), which makes files as large as real
    /// camera photos of the same size.
    public static func photo(width: Int, height: Int, seed: Int, grain: Double = 0, quality: Int = 90) throws(ImagingError) -> Data {
        let image = try photoImage(width: width, height: height, seed: seed, grain: grain)
        return try image.jpeg(quality: quality)
    }

    /// The same picture in another container: ".png", ".heic", ".webp", ".tif"; with `alpha`,
    /// a varying transparency is added (PNG, WebP, TIFF and HEIF keep it).
    public static func photo(width: Int, height: Int, seed: Int, grain: Double = 0, suffix: String, alpha: Bool = false) throws(ImagingError) -> Data
    {
        var image = try photoImage(width: width, height: height, seed: seed, grain: grain)
        if alpha {
            let mask = try VipsImage.make("draw Perlin noise") {
                cvipssampleshim_perlin($0, Int32(width), Int32(height), Int32(max(16, min(width, height) / 3)), Int32(seed &+ 99))
            }
            let rgb = image
            image = try VipsImage.make("add an alpha band") { cvipssampleshim_bandjoin2(rgb.pointer, mask.pointer, $0) }
        }
        let final = image
        return try final.save("encode \(suffix)") { cvipssampleshim_save_buffer(final.pointer, suffix, $0, $1) }
    }

    /// A JPEG of Gaussian noise: it barely compresses, so it is large for its size — the way to
    /// make an image over a byte budget without making it enormous in pixels.
    public static func noise(width: Int, height: Int, sigma: Double = 60, quality: Int = 98) throws(ImagingError) -> Data {
        try Vips.initialize()
        let bands = try (0..<3).map { (_) throws(ImagingError) -> Imaging.VipsImage in
            try VipsImage.make("draw noise") { cvipssampleshim_gaussnoise($0, Int32(width), Int32(height), 128, sigma) }
        }
        let rgb = try VipsImage.make("join bands") {
            cvipssampleshim_bandjoin3(bands[0].pointer, bands[1].pointer, bands[2].pointer, $0)
        }
        let bytes = try rgb.map("convert to 8-bit") { cvipsshim_cast_uchar($0, $1) }
        let tagged = try bytes.map("mark as sRGB") { cvipssampleshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_sRGB) }
        return try tagged.jpeg(quality: quality)
    }

    private static func photoImage(width: Int, height: Int, seed: Int, grain: Double) throws(ImagingError) -> Imaging.VipsImage {
        try Vips.initialize()
        let cell = max(16, min(width, height) / 6)
        let channels = try (0..<3).map { (channel) throws(ImagingError) -> Imaging.VipsImage in
            let smooth = try VipsImage.make("draw Perlin noise") {
                cvipssampleshim_perlin($0, Int32(width), Int32(height), Int32(cell), Int32(seed &* 7 &+ channel))
            }
            guard grain > 0 else { return smooth }
            let noise = try VipsImage.make("draw noise") { cvipssampleshim_gaussnoise($0, Int32(width), Int32(height), 0, grain) }
            let sum = try VipsImage.make("add grain") { cvipssampleshim_add(smooth.pointer, noise.pointer, $0) }
            return try sum.map("convert to 8-bit") { cvipsshim_cast_uchar($0, $1) }
        }
        let rgb = try VipsImage.make("join bands") {
            cvipssampleshim_bandjoin3(channels[0].pointer, channels[1].pointer, channels[2].pointer, $0)
        }
        return try rgb.map("mark as sRGB") { cvipssampleshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_sRGB) }
    }
}
