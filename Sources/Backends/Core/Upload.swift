import Foundation
import Imaging
import JobQueue

/// The bytes a service receives for one job, and what was done to get them.
public struct Upload: Sendable {
    public let data: Data
    /// `image/jpeg`, `image/png`, `video/mp4`, ...
    public let contentType: String
    /// Without the dot: `jpg`, `png`, `mp4`.
    public let fileExtension: String
    public let facts: JobResult.Preparation

    public init(data: Data, contentType: String, fileExtension: String, facts: JobResult.Preparation) {
        self.data = data
        self.contentType = contentType
        self.fileExtension = fileExtension
        self.facts = facts
    }

    public init(image: PreparedImage) {
        let (type, ext): (String, String) = switch image.format {
        case .png: ("image/png", "png")
        case .gif: ("image/gif", "gif")
        case .webp: ("image/webp", "webp")
        case .tiff: ("image/tiff", "tif")
        case .heif: ("image/heic", "heic")
        case .jpeg: ("image/jpeg", "jpg")
        }
        self.init(data: image.data, contentType: type, fileExtension: ext, facts: JobResult.Preparation(
            originalBytes: image.original.bytes, originalWidth: image.original.width, originalHeight: image.original.height,
            originalFormat: image.original.format.rawValue, sentBytes: image.bytes, sentWidth: image.width,
            sentHeight: image.height, sentFormat: image.format.rawValue, jpegQuality: image.quality,
            encodeCount: image.encodeCount, passedThrough: image.passedThrough, milliseconds: image.milliseconds))
    }

    public init(video: CheckedVideo) {
        self.init(data: video.data, contentType: video.container.contentType, fileExtension: video.container.fileExtension,
                  facts: JobResult.Preparation(
                    originalBytes: video.data.count, originalWidth: 0, originalHeight: 0, originalFormat: video.container.rawValue,
                    sentBytes: video.data.count, sentWidth: 0, sentHeight: 0, sentFormat: video.container.rawValue,
                    jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: video.milliseconds))
    }
}
