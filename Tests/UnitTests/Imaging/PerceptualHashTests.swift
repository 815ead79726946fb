import Foundation
import Imaging
import MediaFiles
import SampleImages
import TestFixtures
import Testing

@Suite("Perceptual hash")
struct PerceptualHashTests {
    static func hash(_ data: Data) throws -> UInt64 {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("discern-phash-\(UUID().uuidString).jpg")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try PerceptualHash.of(try OpenedFile.named(url.path))
    }

    @Test("copies of a photo (resized, recompressed, 4 % cropped) are near; twelve different photos are not")
    func nearAndFar() throws {
        var originals: [UInt64] = []
        var worstCopy = 0
        for seed in 1...12 {
            let original = try SampleImages.photo(width: 1200, height: 900, seed: seed)
            let hash = try Self.hash(original)
            originals.append(hash)
            let copies = [
                try SampleImages.photo(width: 600, height: 450, seed: seed),
                try SampleImages.photo(width: 1200, height: 900, seed: seed, quality: 45),
                try ImageFixtures.cropped(original, by: 0.04)
            ]
            for copy in copies { worstCopy = max(worstCopy, PerceptualHash.distance(hash, try Self.hash(copy))) }
        }
        var nearestDistinct = 64
        for i in originals.indices {
            for j in originals.indices where j > i { nearestDistinct = min(nearestDistinct, PerceptualHash.distance(originals[i], originals[j])) }
        }
        print("perceptual hash: copies differ by at most \(worstCopy) bits, distinct photos by at least \(nearestDistinct)")
        #expect(worstCopy <= PerceptualHash.nearDuplicateBits, "copies: \(worstCopy) bits")
        #expect(nearestDistinct > PerceptualHash.nearDuplicateBits, "distinct: \(nearestDistinct) bits")
    }
}
