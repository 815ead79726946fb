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

    public static func of(_ file: OpenedFile) throws(ImagingError) -> UInt64 {
        BlockingCallAudit.check("perceptual hash")
        try Vips.initialize()
        let data = try fileAccess { () throws(FileAccessError) in try file.contents() }
        var hash: UInt64 = 0
        let status = data.withUnsafeBytes { bytes in cvipsshim_dhash_buffer(bytes.baseAddress, bytes.count, &hash) }
        guard status == 0 else { throw ImagingError(.undecodable, "\(file.path) cannot be decoded to compare it with others: \(Vips.takeError())") }
        return hash
    }

    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }
}
