import CVips
import CVipsShim
import Foundation
import MediaFiles

/// Where an image's bytes are: in memory, or in an opened file libvips reads as it decodes (so a
/// 40 MB original is never held whole while it is shrunk). A file is read through its checked
/// descriptor only (`OpenedFile`).
enum ImageInput {
    case memory(Data, PinnedBytes)
    case file(OpenedFile)

    static func memory(_ data: Data) -> ImageInput { .memory(data, PinnedBytes(data)) }

    var size: Int {
        switch self {
        case .memory(let data, _): return data.count
        case .file(let file): return file.size
        }
    }

    /// The first bytes: enough to sniff the format.
    func head() throws(ImagingError) -> [UInt8] {
        switch self {
        case .memory(let data, _): return Array(data.prefix(32))
        case .file(let file): return try fileAccess { () throws(FileAccessError) in try file.read(at: 0, count: 32) }
        }
    }

    /// The bytes through a window of one megabyte (or `size`: a few kilobytes for a walk over
    /// headers only), for walking a file's structure without holding it whole.
    func window(size: Int = ByteWindow.windowSize) -> ByteWindow {
        switch self {
        case .memory(_, let pinned):
            return ByteWindow(count: pinned.count, size: size) { offset, buffer in
                let available = max(0, min(buffer.count, pinned.count - offset))
                if available > 0 { buffer.baseAddress?.copyMemory(from: pinned.pointer + offset, byteCount: available) }
                return available
            }
        case .file(let file):
            return ByteWindow(count: file.size, size: size) { offset, buffer throws(ImagingError) in
                let wanted = max(0, min(buffer.count, file.size - offset))
                return try fileAccess { () throws(FileAccessError) in
                    try file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
                }
            }
        }
    }

    /// All the bytes, for sending the original as it is.
    func contents() throws(ImagingError) -> Data {
        switch self {
        case .memory(let data, _): return data
        case .file(let file):
            return try fileAccess { () throws(FileAccessError) in try file.contents() }
        }
    }

    /// Opens the image lazily: only the header is read.
    func header() -> VipsImage? {
        switch self {
        case .memory(_, let pinned):
            return VipsBuildLock.serialized { cvipsshim_header_from_buffer(pinned.pointer, pinned.count, 1) }
                .map { VipsImage($0, keepingAlive: pinned) }
        case .file(let file):
            return VipsBuildLock.serialized { cvipsshim_header_from_file(file.procPath, 1) }.map { VipsImage($0, keepingAlive: file) }
        }
    }

    /// A JPEG decoded by libjpeg at 1/`shrink` scale (1, 2, 4 or 8), read sequentially, with
    /// nothing resampled and its orientation as stored.
    func jpeg(shrink: Int) -> VipsImage? {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        switch self {
        case .memory(_, let pinned):
            guard VipsBuildLock.serialized({ cvipsshim_jpegload_buffer(pinned.pointer, pinned.count, &out, Int32(shrink), 1) }) == 0,
                let out
            else { return nil }
            return VipsImage(out, keepingAlive: pinned)
        case .file(let file):
            guard VipsBuildLock.serialized({ cvipsshim_jpegload_file(file.procPath, &out, Int32(shrink), 1) }) == 0,
                let out
            else { return nil }
            return VipsImage(out, keepingAlive: file)
        }
    }

    /// The shrink-on-load thumbnail pipeline, fitting a `box` x `box` square, upright.
    func thumbnail(box: Int) -> VipsImage? {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        switch self {
        case .memory(_, let pinned):
            guard VipsBuildLock.serialized({ cvipsshim_thumbnail_buffer(pinned.pointer, pinned.count, &out, Int32(box), Int32(box), 1) }) == 0,
                let out
            else { return nil }
            return VipsImage(out, keepingAlive: pinned)
        case .file(let file):
            guard VipsBuildLock.serialized({ cvipsshim_thumbnail_file(file.procPath, &out, Int32(box), Int32(box), 1) }) == 0,
                let out
            else { return nil }
            // The pipeline reads the file as it encodes: the descriptor must outlive it.
            return VipsImage(out, keepingAlive: file)
        }
    }
}

/// A copy of some bytes at a fixed address, for libvips images that read from memory: libvips
/// keeps the pointer for as long as the image lives, so every image made from it holds this.
final class PinnedBytes: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let count: Int

    init(_ data: Data) {
        count = data.count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { pointer.copyMemory(from: base, byteCount: bytes.count) }
        }
    }

    deinit { pointer.deallocate() }
}
