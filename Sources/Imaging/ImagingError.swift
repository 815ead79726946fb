import ErrorCodes
import Foundation
import MediaFiles

/// Why an image could not be prepared. `kind` is the `error_kind` stored with a dead job.
public struct ImagingError: Error, CustomStringConvertible, Sendable, Equatable {
    public typealias Code = FailureCode<ImagingError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A file that could not be opened or read, with the same code (MediaFiles keeps the
    /// codes images had when Imaging opened files itself).
    public init(_ error: FileAccessError) {
        self.init(Code(error.code.kind), error.message)
    }

    public var kind: FailureKind { code.kind }
    public var description: String { message }
}

extension ImagingError {
    /// Whether a decoder's or libvips' message is the system's error rather than the image's
    /// (strerror's words for a failing volume, a full disk, memory or descriptors running out).
    public static func isSystemFailure(_ detail: String) -> Bool {
        [
            "Input/output error", "Stale file handle", "No space left on device", "Too many open files", "Cannot allocate memory",
            "out of memory", "Transport endpoint is not connected", "Connection timed out", "Disk quota exceeded"
        ]
        .contains { detail.localizedCaseInsensitiveContains($0) }
    }
}

/// The codes a ImagingError carries.
extension FailureCode where Owner == ImagingError {
    public static let empty = Self(.imageEmpty)
    public static let unsupportedFormat = Self(.imageUnsupportedFormat)
    public static let undecodable = Self(.imageUndecodable)
    public static let truncated = Self(.imageTruncated)
    public static let tooManyPixels = Self(.imageTooManyPixels)
    public static let sourceTooLarge = Self(.imageSourceTooLarge)
    public static let tooSmall = Self(.imageTooSmall)
    public static let cannotFit = Self(.imageCannotFit)
    public static let unreadable = Self(.imageUnreadable)
    public static let processingFailed = Self(.imageProcessingFailed)
    /// libvips could not start in this process: the installation's fault, never a photo's.
    public static let libraryFailed = Self(.internalError)
    /// Outside the worker's path roots, relative, or reached through a symlink out of them.
    public static let pathNotAllowed = Self(.pathNotAllowed)
    public static let fileNotFound = Self(.fileNotFound)
    public static let notRegularFile = Self(.fileNotRegular)
}

/// A file opened or read through MediaFiles, its failure as an ImagingError with the same code.
func fileAccess<T>(_ body: () throws(FileAccessError) -> T) throws(ImagingError) -> T {
    do {
        return try body()
    } catch {
        throw ImagingError(error)
    }
}
