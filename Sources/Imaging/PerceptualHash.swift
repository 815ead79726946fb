import CVipsShim
import DedicatedThreads
import Foundation
import MediaFiles

/// A photo's look in 64 bits (a difference hash of a 9 x 8 grey thumbnail): copies of one photo
/// resized, recompressed or slightly cropped are a few bits apart, different photos many.
/// `discern enqueue --near-duplicates last` puts the later of two photos this close at the end
/// of the queue. Blocking: run on a thread of its own, never the cooperative pool.
public enum PerceptualHash {
    /// Bits two photos may differ in and still be the same photo (measured on resized,
    /// recompressed and 4 % cropped copies: 0-6 bits; distinct photos of the test sets: 20 and more).
    public static let nearDuplicateBits = 10

    /// A file over `limits`' size or declared pixels (a decompression bomb), or not in a format
    /// discern accepts, is refused before any of it is read or decoded.
    public static func of(_ file: OpenedFile, limits: ImagePolicy = ImagePolicy()) throws(ImagingError) -> UInt64 {
        BlockingCallAudit.check("perceptual hash")
        try Vips.initialize()
        guard file.size <= limits.maxSourceBytes else {
            throw ImagingError(.sourceTooLarge, "\(file.path) is \(file.size) bytes; the limit for source files is \(limits.maxSourceBytes)")
        }
        let input = ImageInput.file(file)
        guard ImageFormat.sniff(try input.head()) != nil else {
            throw ImagingError(.unsupportedFormat, "\(file.path) is not an image discern accepts")
        }
        guard let header = input.header() else {
            throw ImagingError(.undecodable, "\(file.path) cannot be decoded to compare it with others: \(Vips.takeError())")
        }
        guard header.width * header.height <= limits.maxSourcePixels else {
            throw ImagingError(
                .tooManyPixels, "\(file.path) declares \(header.width)x\(header.height) pixels; the limit is \(limits.maxSourcePixels)")
        }
        let data = try fileAccess { () throws(FileAccessError) in try file.contents() }
        var hash: UInt64 = 0
        let status = data.withUnsafeBytes { bytes in cvipsshim_dhash_buffer(bytes.baseAddress, bytes.count, &hash) }
        guard status == 0 else { throw ImagingError(.undecodable, "\(file.path) cannot be decoded to compare it with others: \(Vips.takeError())") }
        return hash
    }

    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }
}
