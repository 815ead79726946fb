import CVips
import CVipsShim
import Foundation

/// Owns one `VipsImage` reference and drops it exactly once. Used by one thread at a time.
/// Its pointer is for the sample generators and the test fixtures alone (`package`); the product's callers
/// never see it.
package final class VipsImage {
    package let pointer: UnsafeMutablePointer<CVips.VipsImage>
    /// Memory the image may still read from (see `PinnedBytes`).
    private let keepAlive: AnyObject?

    init(_ pointer: UnsafeMutablePointer<CVips.VipsImage>, keepingAlive keepAlive: AnyObject? = nil) {
        self.pointer = pointer
        self.keepAlive = keepAlive
    }
    deinit { VipsBuildLock.serialized { g_object_unref(pointer) } }

    package var width: Int { Int(vips_image_get_width(pointer)) }
    package var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    var bandFormat: VipsBandFormat { vips_image_get_format(pointer) }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }

    /// EXIF orientation 1...8; 1 (upright) when absent.
    var orientation: Int {
        var value: Int32 = 1
        guard vips_image_get_typeof(pointer, "orientation") != 0,
            vips_image_get_int(pointer, "orientation", &value) == 0
        else { return 1 }
        return Int(value)
    }

    /// Runs a libvips operation that writes a new image to its out-parameter.
    package static func make(
        _ what: String, _ operation: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32
    ) throws(ImagingError) -> VipsImage {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        guard VipsBuildLock.serialized({ operation(&out) }) == 0, let out else {
            throw Vips.failure("libvips could not \(what)")
        }
        return VipsImage(out)
    }

    /// A new image computed from this one; it keeps this one's source memory alive, since
    /// libvips pipelines are lazy.
    package func map(
        _ what: String, _ operation: (UnsafeMutablePointer<CVips.VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32
    ) throws(ImagingError) -> VipsImage {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        guard VipsBuildLock.serialized({ operation(pointer, &out) }) == 0, let out else {
            throw Vips.failure("libvips could not \(what)")
        }
        return VipsImage(out, keepingAlive: keepAlive)
    }

    /// Decodes the whole pipeline into memory once, so repeated encodes do not re-decode.
    package func inMemory() throws(ImagingError) -> VipsImage {
        guard let copy = vips_image_copy_memory(pointer) else {
            throw Vips.failure("libvips could not decode the image")
        }
        return VipsImage(copy)
    }

    package func jpeg(quality: Int) throws(ImagingError) -> Data {
        try save("encode JPEG") { cvipsshim_jpegsave_buffer(pointer, $0, $1, Int32(quality)) }
    }

    /// Saves through one of the shim's `*save_buffer` calls into `Data`, freeing libvips' buffer.
    package func save(
        _ what: String, _ saver: (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    ) throws(ImagingError) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard saver(&buffer, &length) == 0, let buffer else {
            throw Vips.failure("libvips could not \(what)")
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}

extension VipsImage {
    /// Opens image bytes lazily (header only), for the sample generators.
    package static func opening(_ data: Data) -> VipsImage? {
        ImageInput.memory(data).header()
    }
}
