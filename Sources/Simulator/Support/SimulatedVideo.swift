import Foundation

/// What the simulated Unissey checks of a selfie video, with its own reading of the bytes (never
/// the product's Imaging): the container from the first bytes, and for MP4/QuickTime that the
/// top-level boxes tile the file exactly, with a `moov` holding a `trak` and media data (`mdat`
/// or fragments), so a truncated, padded or empty upload is refused as the service's decoder
/// would refuse it.
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
    /// the end), end exactly at the end of the file; one is a `moov` with a `trak` inside, and
    /// one holds media (`mdat` or `moof`).
    private static func boxesTile(_ bytes: [UInt8]) -> Bool {
        guard let top = boxes(bytes, in: 0..<bytes.count) else { return false }
        let hasTrack = top.contains { $0.type == "moov" && (boxes(bytes, in: $0.payload)?.contains { $0.type == "trak" } ?? false) }
        return hasTrack && top.contains { $0.type == "mdat" || $0.type == "moof" }
    }

    /// The boxes that tile `range` exactly, or nil.
    private static func boxes(_ bytes: [UInt8], in range: Range<Int>) -> [(type: String, payload: Range<Int>)]? {
        func number(_ offset: Int, _ count: Int) -> UInt64 {
            bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        var found: [(type: String, payload: Range<Int>)] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 8 else { return nil }
            var size = number(offset, 4), header = 8
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1 {
                guard range.upperBound - offset >= 16 else { return nil }
                size = number(offset + 8, 8)
                header = 16
            } else if size == 0 {
                size = UInt64(range.upperBound - offset)
            }
            guard size >= UInt64(header), size <= UInt64(range.upperBound - offset) else { return nil }
            found.append((type, offset + header..<offset + Int(size)))
            offset += Int(size)
        }
        return found
    }
}
