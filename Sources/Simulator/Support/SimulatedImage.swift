import Crypto
import DedicatedThreads
import Foundation
import Hummingbird
import Imaging

/// What a simulated service learns from an uploaded image: whether it decodes, its size, and a
/// number derived from its bytes that drives the deterministic answers (same image, same answer).
struct SimulatedImage {
    let facts: ImageInspector.Facts
    let seed: UInt64

    /// Below this pixel deviation an image is flat: it shows no face (Azure's `[]`, OOTO's
    /// code 5).
    static let flatDeviation = 4.0
    var isFlat: Bool { facts.deviation < Self.flatDeviation }
    /// Twice as wide as high or more: a group photo, more than one face (OOTO's code 6).
    var isPanorama: Bool { facts.width >= 2 * facts.height }

    /// nil when libvips cannot decode the bytes. Decoding runs on the simulator's own threads.
    static func inspect(_ data: Data, on pool: ThreadPool) async -> SimulatedImage? {
        guard let facts = try? await pool.run({ try ImageInspector.inspect(data) }) else { return nil }
        return SimulatedImage(facts: facts, seed: seed(of: data))
    }

    static func seed(of data: Data) -> UInt64 {
        Array(SHA256.hash(data: data)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A share in 0..<1 from the seed, different per `salt`.
    func fraction(_ salt: UInt64) -> Double { Self.fraction(of: seed, salt) }

    static func fraction(of seed: UInt64, _ salt: UInt64) -> Double {
        Double((seed &* 0x9E37_79B9_7F4A_7C15 &+ salt &* 0xBF58_476D_1CE4_E5B9) >> 11) / Double(1 << 53)
    }
}

extension Request {
    /// The body, whole; nil when it is larger than `limit`.
    mutating func data(upTo limit: Int) async -> Data? {
        guard let buffer = try? await collectBody(upTo: limit) else { return nil }
        return Data(buffer.readableBytesView)
    }

    /// A request header by name, case-insensitively.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.canonicalName == wanted }?.value
    }
}
