import CVips

/// Walks a PNG chunk by chunk to IEND, checking every chunk's CRC, and takes out what is not
/// picture: text (tEXt, zTXt, iTXt), EXIF (eXIf), timestamps (tIME), animation and any other
/// ancillary chunk it does not know, and bytes after IEND. Kept: the image data and what
/// decoders need to show the same pixels (palette, transparency, colour and gamma, resolution).
///
/// Without `checkingCRCs` (a PNG that is re-encoded anyway: only whether it is complete matters,
/// and the decoder checks its own CRCs), the walk hops from chunk header to chunk header.
enum PNGStructure {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let critical: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND"]
    private static let keptAncillary: Set<String> = ["tRNS", "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "bKGD", "pHYs"]

    static func walk(_ source: ByteWindow, keepMetadata: Bool, checkingCRCs: Bool = true) throws(ImagingError) -> FileStructure {
        guard try source.bytes(0..<signature.count) == signature else { return .malformed("no PNG signature") }
        var kept = KeptRanges()
        kept.append(0..<signature.count)
        var offset = signature.count
        var first = true
        while true {
            guard offset + 12 <= source.count, let length = try source.number(offset, width: 4),
                let typeBytes = try source.bytes((offset + 4)..<(offset + 8))
            else { return .truncated("the file ends before IEND") }
            guard length <= 0x7FFF_FFFF else { return .malformed("a chunk at offset \(offset) claims \(length) bytes") }
            guard offset + 12 + length <= source.count else { return .truncated("a chunk runs past the end of the file") }
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                return .malformed("no chunk type at offset \(offset)")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let chunkEnd = offset + 12 + length
            if checkingCRCs {
                var crc = CRC32()
                guard try source.forEachBlock((offset + 4)..<(chunkEnd - 4), { crc.add($0) }),
                    let stored = try source.number(chunkEnd - 4, width: 4)
                else { return .truncated("a chunk runs past the end of the file") }
                guard crc.value == UInt32(stored) else { return .malformed("the \(type) chunk's CRC is wrong") }
            } else if try source.byte(chunkEnd - 1) == nil {
                return .truncated("a chunk runs past the end of the file")
            }
            guard !first || type == "IHDR" else { return .malformed("the first chunk is \(type), not IHDR") }
            first = false
            let isCritical = typeBytes[0] < 0x61
            if isCritical && !critical.contains(type) { return .malformed("an unknown critical chunk \(type)") }
            if critical.contains(type) || keptAncillary.contains(type) { kept.append(offset..<chunkEnd) }
            offset = chunkEnd
            if type == "IEND" {
                return keepMetadata ? FileStructure.whole(source) : .complete(kept: kept, removed: source.count - kept.count)
            }
        }
    }
}

/// CRC-32 as PNG defines it, fed block by block: zlib's (word at a time), not a table walked
/// byte by byte in Swift.
struct CRC32 {
    private var state = UInt(CVips.crc32(0, nil, 0))

    mutating func add(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { buffer in
            // zlib takes at most 4 GiB a call; a window is 1 MiB.
            state = CVips.crc32(state, buffer.baseAddress, UInt32(buffer.count))
        }
    }

    var value: UInt32 { UInt32(truncatingIfNeeded: state) }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.add(bytes)
        return crc.value
    }
}
