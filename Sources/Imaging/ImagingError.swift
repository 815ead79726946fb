import Foundation
import ErrorCodes
import MediaFiles

/// Why an image could not be prepared. `kind` is the `error_kind` stored with a dead job.
public struct ImagingError: Error, CustomStringConvertible, Sendable, Equatable {
    public typealias Code = ErrorCode<ImagingError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A file that could not be opened or read, with the same code (MediaFiles keeps the
    /// codes images had when Imaging opened files itself).
    public init(_ error: FileAccessError) {
        self.init(Code(error.code.rawValue), error.message)
    }

    public var kind: String { code.rawValue }
    public var description: String { message }

    /// Only I/O can get better by itself; a bad image stays bad. (A truncated file may still be
    /// arriving: the worker retries it once, see `FilePreparation`.)
    public var isRetryable: Bool { code == .unreadable }
}

extension ImagingError {
    /// Whether a decoder's or libvips' message is the system's error rather than the image's
    /// (strerror's words for a failing volume, a full disk, memory or descriptors running out).
    public static func isSystemFailure(_ detail: String) -> Bool {
        ["Input/output error", "Stale file handle", "No space left on device", "Too many open files", "Cannot allocate memory",
         "out of memory", "Transport endpoint is not connected", "Connection timed out", "Disk quota exceeded"]
            .contains { detail.localizedCaseInsensitiveContains($0) }
    }
}

/// The codes a ImagingError carries.
extension ErrorCode where Owner == ImagingError {
    public static let empty = Self("image_empty")
    public static let unsupportedFormat = Self("image_unsupported_format")
    public static let undecodable = Self("image_undecodable")
    public static let truncated = Self("image_truncated")
    public static let tooManyPixels = Self("image_too_many_pixels")
    public static let sourceTooLarge = Self("image_source_too_large")
    public static let tooSmall = Self("image_too_small")
    public static let cannotFit = Self("image_cannot_fit")
    public static let unreadable = Self("image_unreadable")
    public static let processingFailed = Self("image_processing_failed")
    /// Outside the worker's path roots, relative, or reached through a symlink out of them.
    public static let pathNotAllowed = Self("path_not_allowed")
    public static let fileNotFound = Self("file_not_found")
    public static let notRegularFile = Self("file_not_regular")
}

/// A file opened or read through MediaFiles, its failure as an ImagingError with the same code.
func fileAccess<T>(_ body: () throws(FileAccessError) -> T) throws(ImagingError) -> T {
    do {
        return try body()
    } catch {
        throw ImagingError(error)
    }
}
