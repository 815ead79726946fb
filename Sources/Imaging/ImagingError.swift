/// Why an image could not be prepared. `kind` is the `error_kind` stored with a dead job.
public struct ImagingError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        case empty = "image_empty"
        case unsupportedFormat = "image_unsupported_format"
        case undecodable = "image_undecodable"
        case truncated = "image_truncated"
        case tooManyPixels = "image_too_many_pixels"
        case sourceTooLarge = "image_source_too_large"
        case tooSmall = "image_too_small"
        case cannotFit = "image_cannot_fit"
        case unreadable = "image_unreadable"
        case processingFailed = "image_processing_failed"
        /// Outside the worker's path roots, relative, or reached through a symlink out of them.
        case pathNotAllowed = "path_not_allowed"
        case fileNotFound = "file_not_found"
        case notRegularFile = "file_not_regular"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var kind: String { code.rawValue }
    public var description: String { message }

    /// Only I/O can get better by itself; a bad image stays bad. (A truncated file may still be
    /// arriving: the worker retries it once, see `JobProcessor`.)
    public var isPermanent: Bool { code != .unreadable }
}
