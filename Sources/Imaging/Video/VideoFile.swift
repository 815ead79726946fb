import DedicatedThreads
import Foundation

/// What a video service takes. Videos are never re-encoded: a size check and the
/// container sniffed from the bytes, then the file goes as it is.
public struct VideoPolicy: Sendable, Equatable {
    public var maxBytes: Int
    public var acceptedContainers: Set<VideoContainer>

    public init(maxBytes: Int = 20_000_000, acceptedContainers: Set<VideoContainer> = [.mp4, .quicktime, .webm]) {
        self.maxBytes = maxBytes
        self.acceptedContainers = acceptedContainers
    }
}

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

/// A video that passed the checks, with its bytes.
public struct CheckedVideo: Sendable {
    public let data: Data
    public let container: VideoContainer
    public let milliseconds: Double
}

public enum VideoFile {
    /// Reads and checks an opened video file. Call from a dedicated thread: it reads the whole file.
    public static func check(_ file: OpenedFile, policy: VideoPolicy) throws(ImagingError) -> CheckedVideo {
        BlockingCallAudit.check("video file read")
        let started = DispatchTime.now()
        guard file.size > 0 else { throw ImagingError(.empty, "\(file.path) is empty (0 bytes)") }
        guard file.size <= policy.maxBytes else {
            throw ImagingError(.sourceTooLarge, "\(file.path) is \(file.size) bytes; the video limit is \(policy.maxBytes) bytes (videos are never re-encoded)")
        }
        let data = try file.contents()
        guard let container = VideoContainer.sniff(data), policy.acceptedContainers.contains(container) else {
            throw ImagingError(.unsupportedFormat, "\(file.path) is not a video this service takes (\(policy.acceptedContainers.map(\.rawValue).sorted().joined(separator: ", "))); its first bytes match none of them")
        }
        if let problem = VideoStructure.check(Array(data), container: container, maxFileBytes: policy.maxBytes) {
            throw ImagingError(problem.truncated ? .truncated : .undecodable,
                               "\(file.path) is not a complete \(container.rawValue) video: \(problem.reason)")
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
        return CheckedVideo(data: data, container: container, milliseconds: elapsed)
    }
}
