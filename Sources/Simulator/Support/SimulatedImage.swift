import CVipsSimulatorShim
import Crypto
import DedicatedThreads
import Foundation
import Hummingbird

/// What a simulated service learns from an uploaded image: whether it decodes, its size, and a
/// number derived from its bytes that drives the deterministic answers (same image, same answer).
/// Judged by libvips directly (CVipsSimulatorShim), never by the product's Imaging.
struct SimulatedImage {
    struct Facts: Sendable {
        let width: Int
        let height: Int
        /// The standard deviation of the pixels: near 0 for a flat image.
        let deviation: Double
    }

    /// An image container, from its first bytes, as a service's own check sees it.
    enum Format: Sendable {
        case jpeg, png, gif, webp, tiff, heif, bmp

        static func sniff(_ data: Data) -> Format? {
            let bytes = [UInt8](data.prefix(12))
            func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
                bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
            }
            if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
            if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
            if starts(Array("GIF8".utf8)) { return .gif }
            if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
            if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
            if starts(Array("ftyp".utf8), at: 4) { return .heif }
            if starts(Array("BM".utf8)) { return .bmp }
            return nil
        }
    }

    let facts: Facts
    let seed: UInt64

    /// Below this pixel deviation an image is flat: it shows no face (Azure's `[]`, OOTO's
    /// code 5).
    static let flatDeviation = 4.0
    var isFlat: Bool { facts.deviation < Self.flatDeviation }
    /// Twice as wide as high or more: a group photo, more than one face (OOTO's code 6).
    var isPanorama: Bool { facts.width >= 2 * facts.height }

    /// nil when the bytes are no image, or libvips cannot decode every one of them. Decoding
    /// runs on the simulator's own threads.
    static func inspect(_ data: Data, on pool: ThreadPool) async -> SimulatedImage? {
        guard Format.sniff(data) != nil, let facts = try? await pool.run({ decode(data) }) ?? nil else { return nil }
        return SimulatedImage(facts: facts, seed: seed(of: data))
    }

    private static func decode(_ data: Data) -> Facts? {
        var width: Int32 = 0, height: Int32 = 0, deviation = 0.0
        let status = data.withUnsafeBytes { csimvips_inspect($0.baseAddress, $0.count, &width, &height, &deviation) }
        return status == 0 ? Facts(width: Int(width), height: Int(height), deviation: deviation) : nil
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
