import Enqueueing
import Testing

/// The index must give exactly the verdicts of comparing each photo with every one kept before it
/// (a full scan), only faster.
@Suite("Near-duplicate index")
struct NearDuplicateIndexTests {
    @Test("the same first match as a full scan, for copies 0 to 12 bits away and for distinct hashes", arguments: [10, 3, 0])
    func sameVerdictsAsAFullScan(radius: Int) {
        var random = SplitMix64(seed: UInt64(radius) + 7)
        var originals: [UInt64] = (0..<3_000).map { _ in random.next() }
        // Clustered hashes too, as photos of one camera's scene are: 16 bits shared by all.
        originals += (0..<1_000).map { _ in random.next() & 0xFFFF_FFFF_FFFF_0000 | 0x5A5A }
        var hashes: [UInt64] = [], closeCopies = 0
        for original in originals {
            hashes.append(original)
            // A copy of some, up to 12 bits away, so some are just outside the radius.
            guard random.next() % 3 == 0 else { continue }
            let bits = Int(random.next() % 13)
            hashes.append(original ^ Self.flips(bits, using: &random))
            if bits <= radius { closeCopies += 1 }
        }
        var index = NearDuplicateIndex<Int>(radius: radius)
        var kept: [(hash: UInt64, position: Int)] = []
        var matches = 0
        for (position, hash) in hashes.enumerated() {
            let scanned = kept.first { ($0.hash ^ hash).nonzeroBitCount <= radius }?.position
            let found = index.firstNear(hash)
            #expect(found == scanned, "hash \(position): the index says \(String(describing: found)), a full scan \(String(describing: scanned))")
            if scanned == nil {
                kept.append((hash, position))
                index.insert(hash, position)
            } else {
                matches += 1
            }
        }
        // A copy within the radius of its original matches it, unless the original itself matched
        // an earlier photo and the copy is further from that one.
        #expect(matches > closeCopies / 2, "the planted copies were found: \(matches) matches, \(closeCopies) close copies")
        #expect(index.count == kept.count)
    }

    @Test("the earliest of several kept photos within the radius is the one named")
    func earliestWins() {
        var index = NearDuplicateIndex<String>(radius: 10)
        index.insert(0b1111, "first")
        index.insert(0b1111 << 40, "second")
        #expect(index.firstNear(0b1111 | 0b1111 << 40) == "first", "8 bits from each")
        #expect(index.firstNear(0b1111 << 40 | 0b111111 << 56) == "second", "6 bits from the second, 14 from the first")
        #expect(index.firstNear(~0) == nil)
    }

    private static func flips(_ count: Int, using random: inout SplitMix64) -> UInt64 {
        var mask: UInt64 = 0
        while mask.nonzeroBitCount < count { mask |= 1 << (random.next() % 64) }
        return mask
    }
}
