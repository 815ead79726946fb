import Foundation

/// What the simulated Unissey checks of a selfie video, with its own reading of the bytes (never
/// the product's Imaging): the container from the first bytes, and for MP4/QuickTime that the
/// top-level boxes tile the file exactly, with a `moov` among them, so a truncated or padded
/// upload is refused as the service's decoder would refuse it.
enum SimulatedVideo {
    enum Container: Sendable { case isoMedia, webm }

    /// nil when the bytes are not a video the service takes.
    static func check(_ data: Data) -> Container? {
        let bytes = [UInt8](data)
        if bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            return boxesTile(bytes) ? .isoMedia : nil
        }
        // EBML magic, then a Segment element (0x18538067) somewhere in the first kilobytes.
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            let head = bytes.prefix(4096)
            let segment: [UInt8] = [0x18, 0x53, 0x80, 0x67]
            return head.indices.contains { head[$0...].starts(with: segment) } ? .webm : nil
        }
        return nil
    }

    /// The top-level boxes, each `size` (32-bit, or 1 and a 64-bit size after the type, or 0 to
    /// the end), end exactly at the end of the file, and one of them is `moov`.
    private static func boxesTile(_ bytes: [UInt8]) -> Bool {
        func number(_ offset: Int, _ count: Int) -> UInt64 {
            bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        var offset = 0, sawMovie = false
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else { return false }
            var size = number(offset, 4)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1 {
                guard bytes.count - offset >= 16 else { return false }
                size = number(offset + 8, 8)
                guard size >= 16 else { return false }
            } else if size == 0 {
                size = UInt64(bytes.count - offset)
            }
            guard size >= 8, size <= UInt64(bytes.count - offset) else { return false }
            sawMovie = sawMovie || type == "moov"
            offset += Int(size)
        }
        return sawMovie
    }
}
