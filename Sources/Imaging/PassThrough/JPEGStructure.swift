/// Walks a JPEG marker by marker to its end (EOI), and takes out what is not picture: EXIF and
/// XMP (APP1, GPS included), comments (COM), other applications' segments, and any bytes after
/// EOI. Kept: the frame, tables and scans, JFIF (APP0), the colour profile (APP2 ICC_PROFILE)
/// and Adobe's colour-transform flag (APP14), which decoders need to show the same pixels.
/// Nothing is re-encoded: the scans are copied byte for byte.
enum JPEGStructure {
    static func walk(_ bytes: [UInt8], keepMetadata: Bool) -> FileStructure {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .malformed("no JPEG start marker") }
        var kept: [UInt8] = [0xFF, 0xD8]
        kept.reserveCapacity(bytes.count)
        var offset = 2
        var sawFrame = false, sawScan = false
        while true {
            // Markers may be preceded by fill bytes (0xFF).
            guard offset < bytes.count, bytes[offset] == 0xFF else {
                return offset >= bytes.count ? .truncated("the file ends before its end marker") : .malformed("no marker at offset \(offset)")
            }
            while offset < bytes.count && bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { return .truncated("the file ends inside a marker") }
            let marker = bytes[offset]
            offset += 1
            if marker == 0xD9 {
                guard sawFrame, sawScan else { return .malformed("the end marker comes before any picture") }
                kept += [0xFF, 0xD9]
                // Anything after EOI (a second picture, appended data) is not this picture.
                return .complete(bytes: keepMetadata ? bytes : kept, removed: keepMetadata ? 0 : bytes.count - kept.count)
            }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                kept += [0xFF, marker]
                continue
            }
            guard offset + 2 <= bytes.count else { return .truncated("the file ends inside a segment header") }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else { return .malformed("a segment at offset \(offset) has length \(length)") }
            guard offset + length <= bytes.count else { return .truncated("a segment runs past the end of the file") }
            let segment = bytes[offset..<(offset + length)]
            if keeps(marker, payload: segment.dropFirst(2)) { kept += [0xFF, marker] + segment }
            offset += length
            if isFrame(marker) { sawFrame = true }
            guard marker == 0xDA else { continue }
            // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
            guard sawFrame else { return .malformed("a scan before the frame header") }
            sawScan = true
            let start = offset
            while true {
                guard offset + 1 < bytes.count else { return .truncated("the file ends inside the compressed picture") }
                if bytes[offset] == 0xFF, bytes[offset + 1] != 0x00, !(0xD0...0xD7).contains(bytes[offset + 1]), bytes[offset + 1] != 0xFF {
                    break
                }
                offset += 1
            }
            kept += bytes[start..<offset]
        }
    }

    /// Start-of-frame markers: C0-CF except DHT (C4), JPG (C8) and DAC (CC).
    private static func isFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
    }

    private static func keeps(_ marker: UInt8, payload: ArraySlice<UInt8>) -> Bool {
        switch marker {
        case 0xE0: return payload.starts(with: Array("JFIF\0".utf8))
        case 0xE2: return payload.starts(with: Array("ICC_PROFILE\0".utf8))
        case 0xEE: return payload.starts(with: Array("Adobe".utf8))
        case 0xE1, 0xE3...0xED, 0xEF, 0xFE: return false  // EXIF/XMP, other APPn, comments
        default: return true
        }
    }
}
