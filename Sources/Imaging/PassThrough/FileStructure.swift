import MediaFiles

/// What a walk over a file's structure found.
enum FileStructure: Equatable {
    /// Complete; `kept` is the file with its metadata taken out (or whole, when kept), as ranges
    /// of the file, so a file too large to send is never copied.
    case complete(kept: KeptRanges, removed: Int)
    /// The file ends before its structure does: it may still be arriving.
    case truncated(String)
    /// Not what a complete file of its format looks like; the decoder may still read it.
    case malformed(String)

    /// `completenessOnly`: the file is re-encoded anyway; only whether it ends as a complete file
    /// must is asked (a PNG then skips its CRCs, which its decoder checks).
    static func walk(
        _ source: ByteWindow, format: ImageFormat, keepMetadata: Bool, completenessOnly: Bool = false
    ) throws(ImagingError) -> FileStructure? {
        switch format {
        case .jpeg: return try JPEGStructure.walk(source, keepMetadata: keepMetadata)
        case .png: return try PNGStructure.walk(source, keepMetadata: keepMetadata, checkingCRCs: !completenessOnly)
        default: return nil
        }
    }

    /// The same walk over bytes in memory.
    static func walk(_ bytes: [UInt8], format: ImageFormat, keepMetadata: Bool) -> FileStructure? {
        try? walk(ByteWindow(bytes), format: format, keepMetadata: keepMetadata)
    }

    /// A whole file, kept as it is.
    static func whole(_ source: ByteWindow) -> FileStructure {
        var kept = KeptRanges()
        kept.append(0..<source.count)
        return .complete(kept: kept, removed: 0)
    }
}
