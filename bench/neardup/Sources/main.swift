import Enqueueing
import Foundation

// Near-duplicate search over a run's perceptual hashes, as `discern enqueue --near-duplicates
// last` does it (each photo against those kept before it; a match is not kept), three ways on
// the same hashes: the multi-index the command uses (NearDuplicateIndex), the full scan it used
// before issue 44, and a BK-tree (the other index a competent user would reach for).
//   NearDuplicateBench [PHOTOS] [SCAN_LIMIT]
// The hashes: a third spread uniformly, a third from 300 "scenes" (cameras that film the same
// place: 24 bits in common), a third copies of earlier ones 0-8 bits away (resized, recompressed).

/// xorshift64* (Vigna): a seeded generator, so every run searches the same hashes.
struct XorShift64Star {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

func hashes(_ count: Int) -> [UInt64] {
    var random = XorShift64Star(state: 44)
    let scenes = (0..<300).map { _ in random.next() & 0xFFFF_FF00_0000_0000 }
    var made: [UInt64] = []
    made.reserveCapacity(count)
    while made.count < count {
        switch random.next() % 3 {
        case 0: made.append(random.next())
        case 1: made.append(scenes[Int(random.next() % 300)] | random.next() >> 24)
        default:
            guard let original = made.isEmpty ? nil : made[Int(random.next() % UInt64(made.count))] else { continue }
            var copy = original
            for _ in 0..<(random.next() % 9) { copy ^= 1 << (random.next() % 64) }
            made.append(copy)
        }
    }
    return made
}

/// Runs a search over `hashes` and returns its verdicts (the position matched, or -1) and seconds.
func timed(_ hashes: ArraySlice<UInt64>, _ search: (ArraySlice<UInt64>) -> [Int]) -> ([Int], Double) {
    let start = ContinuousClock.now
    let verdicts = search(hashes)
    let elapsed = ContinuousClock.now - start
    return (verdicts, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

let radius = 10
func multiIndex(_ hashes: ArraySlice<UInt64>) -> [Int] {
    var index = NearDuplicateIndex<Int>(radius: radius)
    return hashes.enumerated().map { position, hash in
        if let match = index.firstNear(hash) { return match }
        index.insert(hash, position)
        return -1
    }
}

func fullScan(_ hashes: ArraySlice<UInt64>) -> [Int] {
    var kept: [(hash: UInt64, position: Int)] = []
    return hashes.enumerated().map { position, hash in
        if let match = kept.first(where: { ($0.hash ^ hash).nonzeroBitCount <= radius }) { return match.position }
        kept.append((hash, position))
        return -1
    }
}

/// A BK-tree (Burkhard and Keller, 1973) over Hamming distance. It finds every kept hash within
/// the radius; the earliest of them is the verdict.
func bkTree(_ hashes: ArraySlice<UInt64>) -> [Int] {
    var nodes: [(hash: UInt64, position: Int, children: [Int: Int])] = []
    return hashes.enumerated().map { position, hash in
        var best = Int.max, stack = nodes.isEmpty ? [] : [0]
        while let node = stack.popLast() {
            let distance = (nodes[node].hash ^ hash).nonzeroBitCount
            if distance <= radius { best = min(best, nodes[node].position) }
            for (edge, child) in nodes[node].children where abs(edge - distance) <= radius { stack.append(child) }
        }
        if best != .max { return best }
        nodes.append((hash, position, [:]))
        var node = 0
        while nodes.count > 1 {
            let distance = (nodes[node].hash ^ hash).nonzeroBitCount
            if let child = nodes[node].children[distance] { node = child } else {
                nodes[node].children[distance] = nodes.count - 1
                break
            }
        }
        return -1
    }
}

/// A line at once, not when a pipe's buffer fills: a run takes minutes.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let photos = arguments.first ?? 1_000_000, scanLimit = arguments.dropFirst().first ?? 100_000
let all = hashes(photos)
say("near-duplicates within \(radius) of 64 bits; hashes: a third uniform, a third from 300 scenes, a third copies 0-8 bits away")
say("| photos | multi-index (s) | full scan (s) | BK-tree (s) | matches | verdicts equal |")
say("|---:|---:|---:|---:|---:|---|")
var size = 25_000
while size <= photos {
    let slice = all[0..<size]
    let (indexed, indexSeconds) = timed(slice, multiIndex)
    let scan = size <= scanLimit ? timed(slice, fullScan) : nil
    let tree = size <= scanLimit ? timed(slice, bkTree) : nil
    let equal = [scan?.0, tree?.0].compactMap { $0 }.allSatisfy { $0 == indexed }
    func cell(_ run: ([Int], Double)?) -> String { run.map { String(format: "%.2f", $0.1) } ?? "-" }
    say("| \(size) | \(String(format: "%.2f", indexSeconds)) | \(cell(scan)) | \(cell(tree)) | \(indexed.count { $0 >= 0 }) | \(equal ? "yes" : "NO") |")
    size = size == photos ? photos + 1 : min(size * 2, photos)
}
