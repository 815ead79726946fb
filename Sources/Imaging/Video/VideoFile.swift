import DedicatedThreads
import Foundation
import MediaFiles

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
            throw ImagingError(
                .sourceTooLarge, "\(file.path) is \(file.size) bytes; the video limit is \(policy.maxBytes) bytes (videos are never re-encoded)")
        }
        let data = try fileAccess { () throws(FileAccessError) in try file.contents() }
        guard let container = VideoContainer.sniff(data), policy.acceptedContainers.contains(container) else {
            throw ImagingError(
                .unsupportedFormat,
                "\(file.path) is not a video this service takes (\(policy.acceptedContainers.map(\.rawValue).sorted().joined(separator: ", "))); its first bytes match none of them"
            )
        }
        if let problem = VideoStructure.check(Array(data), container: container, maxFileBytes: policy.maxBytes) {
            throw ImagingError(
                problem.truncated ? .truncated : .undecodable,
                "\(file.path) is not a complete \(container.rawValue) video: \(problem.reason)")
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
        return CheckedVideo(data: data, container: container, milliseconds: elapsed)
    }
}
