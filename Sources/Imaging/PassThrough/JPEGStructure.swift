/// Walks a JPEG marker by marker to its end (EOI), and takes out what is not picture: EXIF and
/// XMP (APP1, GPS included), comments (COM), other applications' segments, and any bytes after
/// EOI. Kept: the frame, tables and scans, JFIF (APP0), the colour profile (APP2 ICC_PROFILE)
/// and Adobe's colour-transform flag (APP14), which decoders need to show the same pixels.
/// Nothing is re-encoded: the scans are copied byte for byte.
enum JPEGStructure {
    static func walk(_ source: ByteWindow, keepMetadata: Bool) throws(ImagingError) -> FileStructure {
        guard source.count >= 4, try source.byte(0) == 0xFF, try source.byte(1) == 0xD8 else { return .malformed("no JPEG start marker") }
        var kept = KeptRanges()
        kept.append(0..<2)
        var offset = 2
        var sawFrame = false, sawScan = false
        while true {
            // Markers may be preceded by fill bytes (0xFF); the last of them and the marker are
            // what is kept.
            guard let lead = try source.byte(offset) else { return .truncated("the file ends before its end marker") }
            guard lead == 0xFF else { return .malformed("no marker at offset \(offset)") }
            while try source.byte(offset) == 0xFF { offset += 1 }
            guard let marker = try source.byte(offset) else { return .truncated("the file ends inside a marker") }
            offset += 1
            if marker == 0xD9 {
                guard sawFrame, sawScan else { return .malformed("the end marker comes before any picture") }
                kept.append((offset - 2)..<offset)
                // Anything after EOI (a second picture, appended data) is not this picture.
                return keepMetadata ? FileStructure.whole(source) : .complete(kept: kept, removed: source.count - kept.count)
            }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                kept.append((offset - 2)..<offset)
                continue
            }
            guard let length = try source.number(offset, width: 2) else { return .truncated("the file ends inside a segment header") }
            guard length >= 2 else { return .malformed("a segment at offset \(offset) has length \(length)") }
            guard offset + length <= source.count else { return .truncated("a segment runs past the end of the file") }
            let payloadStart = try source.bytes((offset + 2)..<min(offset + 2 + 12, offset + length)) ?? []
            if keeps(marker, payloadStart: payloadStart) { kept.append((offset - 2)..<(offset + length)) }
            offset += length
            if isFrame(marker) { sawFrame = true }
            guard marker == 0xDA else { continue }
            // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
            guard sawFrame else { return .malformed("a scan before the frame header") }
            sawScan = true
            let start = offset
            guard let marker = try source.nextMarker(from: offset) else { return .truncated("the file ends inside the compressed picture") }
            offset = marker
            kept.append(start..<offset)
        }
    }

    /// The memory libjpeg holds for the whole picture's DCT coefficients, whatever the scale it
    /// decodes at, when the frame is progressive (SOF2, SOF6, SOF10, SOF14): 2 bytes a
    /// coefficient, 64 per 8x8 block of each component at its own sampling. 0 for a sequential
    /// frame (decoded a few lines at a time) or when the frame header cannot be read. Reads the
    /// segment headers up to the frame: a few kilobytes, however large the file.
    static func progressiveCoefficientBytes(_ source: ByteWindow) throws(ImagingError) -> Int {
        guard source.count >= 4, try source.byte(0) == 0xFF, try source.byte(1) == 0xD8 else { return 0 }
        var offset = 2
        while true {
            guard try source.byte(offset) == 0xFF else { return 0 }
            while try source.byte(offset) == 0xFF { offset += 1 }
            guard let marker = try source.byte(offset) else { return 0 }
            offset += 1
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }
            guard marker != 0xDA, marker != 0xD9, let length = try source.number(offset, width: 2), length >= 2 else { return 0 }
            guard isFrame(marker) else {
                offset += length
                continue
            }
            guard [0xC2, 0xC6, 0xCA, 0xCE].contains(marker),
                let height = try source.number(offset + 3, width: 2), let width = try source.number(offset + 5, width: 2),
                let components = try source.byte(offset + 7), components > 0
            else { return 0 }
            var factors: [(h: Int, v: Int)] = []
            for index in 0..<Int(components) {
                guard let sampling = try source.byte(offset + 8 + 3 * index + 1) else { return 0 }
                factors.append((max(1, Int(sampling >> 4)), max(1, Int(sampling & 0x0F))))
            }
            let hMax = factors.map(\.h).max() ?? 1, vMax = factors.map(\.v).max() ?? 1
            return factors.reduce(0) { total, factor in
                let columns = (width * factor.h + hMax * 8 - 1) / (hMax * 8), rows = (height * factor.v + vMax * 8 - 1) / (vMax * 8)
                return total + columns * rows * 64 * 2
            }
        }
    }

    /// Start-of-frame markers: C0-CF except DHT (C4), JPG (C8) and DAC (CC).
    private static func isFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
    }

    /// `payloadStart`: the segment's first bytes after its length (up to 12: enough to tell).
    private static func keeps(_ marker: UInt8, payloadStart payload: [UInt8]) -> Bool {
        switch marker {
        case 0xE0: return payload.starts(with: Array("JFIF\0".utf8))
        case 0xE2: return payload.starts(with: Array("ICC_PROFILE\0".utf8))
        case 0xEE: return payload.starts(with: Array("Adobe".utf8))
        case 0xE1, 0xE3...0xED, 0xEF, 0xFE: return false  // EXIF/XMP, other APPn, comments
        default: return true
        }
    }
}
