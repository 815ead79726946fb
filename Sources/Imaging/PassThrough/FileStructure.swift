/// What a walk over a file's structure found.
enum FileStructure: Equatable {
    /// Complete; `bytes` is the file with its metadata taken out (or whole, when kept).
    case complete(bytes: [UInt8], removed: Int)
    /// The file ends before its structure does: it may still be arriving.
    case truncated(String)
    /// Not what a complete file of its format looks like; the decoder may still read it.
    case malformed(String)

    static func walk(_ bytes: [UInt8], format: ImageFormat, keepMetadata: Bool) -> FileStructure? {
        switch format {
        case .jpeg: return JPEGStructure.walk(bytes, keepMetadata: keepMetadata)
        case .png: return PNGStructure.walk(bytes, keepMetadata: keepMetadata)
        default: return nil
        }
    }
}
