import CVips
import CVipsShim
import Foundation

/// Where an image's bytes are: in memory, or in a file libvips reads as it decodes (so a 40 MB
/// original is never held whole while it is shrunk).
enum ImageInput {
    case memory(Data, PinnedBytes)
    case file(path: String, size: Int)

    static func memory(_ data: Data) -> ImageInput { .memory(data, PinnedBytes(data)) }

    var size: Int {
        switch self {
        case .memory(let data, _): return data.count
        case .file(_, let size): return size
        }
    }

    /// The first and last bytes: enough to sniff the format and check the trailer.
    func edges() throws(ImagingError) -> (head: [UInt8], tail: [UInt8]) {
        switch self {
        case .memory(let data, _):
            return (Array(data.prefix(32)), Array(data.suffix(64)))
        case .file(let path, let size):
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
                defer { try? handle.close() }
                let head = try handle.read(upToCount: 32) ?? Data()
                try handle.seek(toOffset: UInt64(max(0, size - 64)))
                let tail = try handle.read(upToCount: 64) ?? Data()
                return (Array(head), Array(tail))
            } catch {
                throw ImagingError(.unreadable, "\(path) cannot be read: \(error.localizedDescription)")
            }
        }
    }

    /// All the bytes, for sending the original as it is.
    func contents() throws(ImagingError) -> Data {
        switch self {
        case .memory(let data, _): return data
        case .file(let path, _):
            do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw ImagingError(.unreadable, "\(path) cannot be read: \(error.localizedDescription)")
            }
        }
    }

    /// Opens the image lazily: only the header is read.
    func header() -> VipsImage? {
        switch self {
        case .memory(_, let pinned):
            return VipsBuildLock.serialized { cvipsshim_header_from_buffer(pinned.pointer, pinned.count, 1) }
                .map { VipsImage($0, keepingAlive: pinned) }
        case .file(let path, _):
            return VipsBuildLock.serialized { cvipsshim_header_from_file(path, 1) }.map { VipsImage($0) }
        }
    }

    /// The shrink-on-load thumbnail pipeline, fitting a `box` x `box` square.
    func thumbnail(box: Int) -> VipsImage? {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        switch self {
        case .memory(_, let pinned):
            guard VipsBuildLock.serialized({ cvipsshim_thumbnail_buffer(pinned.pointer, pinned.count, &out, Int32(box), Int32(box), 1) }) == 0,
                  let out else { return nil }
            return VipsImage(out, keepingAlive: pinned)
        case .file(let path, _):
            guard VipsBuildLock.serialized({ cvipsshim_thumbnail_file(path, &out, Int32(box), Int32(box), 1) }) == 0, let out else { return nil }
            return VipsImage(out)
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
