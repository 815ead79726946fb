/// The photos kept so far in a run, by their 64-bit perceptual hash, to find the first one a new
/// photo nearly duplicates: within `radius` differing bits.
///
/// Comparing each photo with every photo kept is quadratic: fine for tens of thousands, hours for
/// a night of a million. This is multi-index hashing (Norouzi, Punjani and Fleet, "Fast Search in
/// Hamming Space with Multi-Index Hashing", 2012): the hash is dealt into four 16-bit quarters, and
/// two hashes within `radius` bits differ in at least one quarter by no more than `radius / 4`
/// bits (if every quarter differed by more, the whole would differ by more than `radius`). So a
/// photo's candidates are those filed under each of its quarters or a value that close to it: 137
/// table slots per quarter at a radius of 10, each holding about one photo in 65,536. Every
/// candidate is then checked whole, so the verdicts are exactly a full comparison's. The bits are
/// dealt, not cut (quarter q holds bits q, q + 4, q + 8, ...): neighbouring bits of a difference
/// hash describe neighbouring parts of a photo, and photos of one scene share whole runs of them
/// (a sky), which cut quarters would file all under one slot.
public struct NearDuplicateIndex<Value> {
    public let radius: Int
    private var values: [Value] = []
    /// Per quarter and 16-bit value (`quarter << 16 | value`), the hashes filed there with their
    /// positions, in the order kept: a slot is read front to back, in one run of memory, and
    /// stops at its first match or at the first photo kept after the best match so far.
    private var slots: [[Kept]]
    private struct Kept {
        let hash: UInt64
        let position: Int32
    }
    /// Every 16-bit pattern of at most `radius / 4` bits: the flips a quarter's probe tries.
    private let flips: [UInt16]

    public init(radius: Int) {
        precondition((0...63).contains(radius), "a radius of 0 to 63 bits")
        self.radius = radius
        slots = Array(repeating: [], count: 4 << 16)
        let perQuarter = radius / 4
        flips = (0...UInt16.max).filter { $0.nonzeroBitCount <= perQuarter }
    }

    public var count: Int { values.count }

    /// The earliest kept value whose hash is within `radius` bits of `hash`, as a scan of every
    /// kept photo in order would find it; nil if none is.
    public func firstNear(_ hash: UInt64) -> Value? {
        var best = Int32.max
        for quarter in 0..<4 {
            let slot = Int(Self.quarter(hash, quarter)), base = quarter << 16
            for flip in flips {
                for kept in slots[base | (slot ^ Int(flip))] {
                    if kept.position >= best { break }
                    if (kept.hash ^ hash).nonzeroBitCount <= radius {
                        best = kept.position
                        break
                    }
                }
            }
        }
        return best == .max ? nil : values[Int(best)]
    }

    /// Keeps `value` under `hash`, after every value kept before it.
    public mutating func insert(_ hash: UInt64, _ value: Value) {
        let position = Int32(values.count)
        values.append(value)
        for quarter in 0..<4 {
            slots[quarter << 16 | Int(Self.quarter(hash, quarter))].append(Kept(hash: hash, position: position))
        }
    }

    /// Bits `index`, `index + 4`, ... of `hash`, gathered into 16.
    private static func quarter(_ hash: UInt64, _ index: Int) -> UInt16 {
        var bits = hash >> index, gathered: UInt16 = 0
        for position in 0..<16 {
            gathered |= UInt16(truncatingIfNeeded: bits & 1) << position
            bits >>= 4
        }
        return gathered
    }
}
