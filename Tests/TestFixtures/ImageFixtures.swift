import CVips
import CVipsShim
import CVipsFixtureShim
import CVipsSampleShim
import Foundation
import Imaging
import SampleImages

/// Images with one particular property each — EXIF orientation, CMYK, 16 bits, transparency,
/// another container format — made with libvips, for tests and benchmarks.
public enum ImageFixtures {
    /// A JPEG whose stored pixels, once turned by EXIF `orientation`, show a `width` x `height`
    /// image that is black except for a white top-left quadrant.
    public static func orientedMarker(orientation: Int, width: Int = 320, height: Int = 200) throws(ImagingError) -> Data {
        try Vips.initialize()
        let upright = try VipsImage.make("make a black image") { cvipsfixtureshim_black($0, Int32(width), Int32(height), 1) }.inMemory()
        guard cvipsfixtureshim_draw_rect(upright.pointer, 255, 0, 0, Int32(width / 2), Int32(height / 2)) == 0 else {
            throw ImagingError(.processingFailed, "libvips could not draw: \(Vips.takeError())")
        }
        // Store the inverse of the turn the viewer will apply, so the viewer sees `upright`.
        let stored: Imaging.VipsImage
        switch orientation {
        case 2: stored = try upright.map("flip") { cvipsfixtureshim_flip($0, $1, VIPS_DIRECTION_HORIZONTAL) }
        case 3: stored = try upright.map("rotate") { cvipsfixtureshim_rot($0, $1, VIPS_ANGLE_D180) }
        case 4: stored = try upright.map("flip") { cvipsfixtureshim_flip($0, $1, VIPS_DIRECTION_VERTICAL) }
        case 5:  // transpose, its own inverse
            stored = try upright.map("rotate") { cvipsfixtureshim_rot($0, $1, VIPS_ANGLE_D90) }
                .map("flip") { cvipsfixtureshim_flip($0, $1, VIPS_DIRECTION_HORIZONTAL) }
        case 6: stored = try upright.map("rotate") { cvipsfixtureshim_rot($0, $1, VIPS_ANGLE_D270) }
        case 7:  // transverse, its own inverse
            stored = try upright.map("rotate") { cvipsfixtureshim_rot($0, $1, VIPS_ANGLE_D270) }
                .map("flip") { cvipsfixtureshim_flip($0, $1, VIPS_DIRECTION_HORIZONTAL) }
        case 8: stored = try upright.map("rotate") { cvipsfixtureshim_rot($0, $1, VIPS_ANGLE_D90) }
        default: stored = upright
        }
        let tagged = try stored.map("copy") { cvipssampleshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_B_W) }
        vips_image_set_int(tagged.pointer, "orientation", Int32(orientation))
        return try tagged.save("encode JPEG") { cvipsfixtureshim_jpegsave_buffer_keep(tagged.pointer, $0, $1, 95) }
    }

    /// A JPEG of one flat grey: nothing in it (no face, no vehicle). Padded with a comment past
    /// `minBytes`, since tiny files are refused for their size alone.
    public static func flat(width: Int = 640, height: Int = 480, minBytes: Int = 2048) throws(ImagingError) -> Data {
        try Vips.initialize()
        let black = try VipsImage.make("make a black image") { cvipsfixtureshim_black($0, Int32(width), Int32(height), 3) }
        let srgb = try black.map("tag sRGB") { cvipssampleshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_sRGB) }
        let cast = try srgb.map("cast") { cvipsfixtureshim_cast($0, $1, VIPS_FORMAT_UCHAR) }
        var jpeg = try cast.jpeg(quality: 90)
        if jpeg.count < minBytes {
            // A COM segment after SOI: harmless to decoders, stripped before anything leaves.
            let padding = minBytes - jpeg.count
            let length = padding + 2
            jpeg =
                jpeg.prefix(2) + Data([0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]) + Data(repeating: 0x20, count: padding)
                + jpeg.dropFirst(2)
        }
        return jpeg
    }

    /// `image` re-encoded in the format a file suffix names: ".png", ".webp", ".tif", ".heic", ".gif".
    public static func converted(_ image: Data, to suffix: String) throws(ImagingError) -> Data {
        let decoded = try decode(image)
        return try decoded.save("encode \(suffix)") { cvipssampleshim_save_buffer(decoded.pointer, suffix, $0, $1) }
    }

    /// `image` with `fraction` of its width and height cut off, half on each side, as a JPEG: a
    /// photo someone cropped a little.
    public static func cropped(_ image: Data, by fraction: Double, quality: Int = 90) throws(ImagingError) -> Data {
        let decoded = try decode(image)
        let width = Int(decoded.pointer.pointee.Xsize), height = Int(decoded.pointer.pointee.Ysize)
        let cutX = Int(Double(width) * fraction / 2), cutY = Int(Double(height) * fraction / 2)
        let inner = try decoded.map("crop") {
            cvipsfixtureshim_extract_area($0, $1, Int32(cutX), Int32(cutY), Int32(width - 2 * cutX), Int32(height - 2 * cutY))
        }
        return try inner.jpeg(quality: quality)
    }

    /// A CMYK JPEG (as print workflows produce).
    public static func cmykJPEG(width: Int, height: Int) throws(ImagingError) -> Data {
        let rgb = try decode(SampleImages.photo(width: width, height: height, seed: 11))
        let cmyk = try rgb.map("convert to CMYK") { cvipsfixtureshim_colourspace($0, $1, VIPS_INTERPRETATION_CMYK) }
        return try cmyk.save("encode JPEG") { cvipsfixtureshim_jpegsave_buffer_keep(cmyk.pointer, $0, $1, 90) }
    }

    /// A 16-bit-per-channel RGB PNG.
    public static func sixteenBitPNG(width: Int, height: Int) throws(ImagingError) -> Data {
        let rgb = try decode(SampleImages.photo(width: width, height: height, seed: 12))
        let wide = try rgb.map("convert to 16-bit") { cvipsfixtureshim_colourspace($0, $1, VIPS_INTERPRETATION_RGB16) }
        return try wide.save("encode PNG") { cvipssampleshim_save_buffer(wide.pointer, ".png", $0, $1) }
    }

    /// An RGBA PNG that is black and fully transparent everywhere: flattened on white it is
    /// white, flattened on black (libvips' default) it is black.
    public static func transparentPNG(width: Int, height: Int) throws(ImagingError) -> Data {
        try Vips.initialize()
        let clear = try VipsImage.make("make a black image") { cvipsfixtureshim_black($0, Int32(width), Int32(height), 4) }
        let tagged = try clear.map("mark as sRGB") { cvipssampleshim_copy_interpretation($0, $1, VIPS_INTERPRETATION_sRGB) }
        let bytes = try tagged.map("convert to 8-bit") { cvipsshim_cast_uchar($0, $1) }
        return try bytes.save("encode PNG") { cvipssampleshim_save_buffer(bytes.pointer, ".png", $0, $1) }
    }

    /// A valid JPEG whose header claims `width` x `height`: the shape of a decompression bomb.
    public static func claimingDimensions(width: Int, height: Int) throws(ImagingError) -> Data {
        var jpeg = try SampleImages.photo(width: 64, height: 64, seed: 1)
        // Baseline start-of-frame: FF C0, length (2), precision (1), height (2), width (2).
        guard let marker = jpeg.indices.dropLast(9).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else {
            throw ImagingError(.processingFailed, "no baseline frame header in the fixture")
        }
        jpeg[marker + 5] = UInt8(height >> 8 & 0xFF)
        jpeg[marker + 6] = UInt8(height & 0xFF)
        jpeg[marker + 7] = UInt8(width >> 8 & 0xFF)
        jpeg[marker + 8] = UInt8(width & 0xFF)
        return jpeg
    }

    static func decode(_ data: Data) throws(ImagingError) -> Imaging.VipsImage {
        try Vips.initialize()
        guard let image = Imaging.VipsImage.opening(data) else {
            throw ImagingError(.undecodable, "cannot decode the image: \(Vips.takeError())")
        }
        return try image.inMemory()
    }
}
