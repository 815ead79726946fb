/// The video containers discern accepts, recognised from their first bytes, never from the name.
public enum VideoContainer: String, Sendable, CaseIterable {
    case mp4, quicktime, webm

    public var contentType: String {
        switch self {
        case .mp4: "video/mp4"
        case .quicktime: "video/quicktime"
        case .webm: "video/webm"
        }
    }

    public var fileExtension: String {
        switch self {
        case .mp4: "mp4"
        case .quicktime: "mov"
        case .webm: "webm"
        }
    }

    /// ISO base media (`ftyp` box; `qt  ` brand for QuickTime) or Matroska/WebM (EBML magic).
    public static func sniff(_ bytes: some Collection<UInt8>) -> VideoContainer? {
        let head = Array(bytes.prefix(16))
        if head.count >= 4, head[0..<4] == [0x1A, 0x45, 0xDF, 0xA3] { return .webm }
        guard head.count >= 12, String(decoding: head[4..<8], as: UTF8.self) == "ftyp" else { return nil }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        if brand == "qt  " { return .quicktime }
        // Image brands (heic, avif, ...) share the box; they are not videos.
        let imageBrands = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"]
        return imageBrands.contains(brand) ? nil : .mp4
    }
}
