import Foundation
import Imaging
import MediaFiles

/// The bytes a service receives for one job. What preparation did to get them is the worker's
/// business, not the client's.
public struct Upload: Sendable {
    public let data: Data
    /// `image/jpeg`, `image/png`, `video/mp4`, ...
    public let contentType: String
    /// Without the dot: `jpg`, `png`, `mp4`.
    public let fileExtension: String

    public init(data: Data, contentType: String, fileExtension: String) {
        self.data = data
        self.contentType = contentType
        self.fileExtension = fileExtension
    }

    public init(image: PreparedImage) {
        let (type, ext): (String, String) =
            switch image.format {
            case .png: ("image/png", "png")
            case .gif: ("image/gif", "gif")
            case .webp: ("image/webp", "webp")
            case .tiff: ("image/tiff", "tif")
            case .heif: ("image/heic", "heic")
            case .jpeg: ("image/jpeg", "jpg")
            }
        self.init(data: image.data, contentType: type, fileExtension: ext)
    }

    public init(video: CheckedVideo) {
        self.init(data: video.data, contentType: video.container.contentType, fileExtension: video.container.fileExtension)
    }

    /// For actions that send no file (deleting an OOTO template).
    public static let nothing = Upload(data: Data(), contentType: "application/octet-stream", fileExtension: "")
}
