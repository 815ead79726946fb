import ErrorCodes
import Foundation
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

    /// Whether another attempt may help, as the registry says (`FailureKind.retry`): only I/O
    /// gets better by itself, and a truncated file may still be arriving (tried once more).
    public var isRetryable: Bool { FailureKind.named(kind)?.retry == .yes }
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
extension ErrorCode where Owner == ImagingError {
    public static let empty = Self(FailureKind.imageEmpty.code)
    public static let unsupportedFormat = Self(FailureKind.imageUnsupportedFormat.code)
    public static let undecodable = Self(FailureKind.imageUndecodable.code)
    public static let truncated = Self(FailureKind.imageTruncated.code)
    public static let tooManyPixels = Self(FailureKind.imageTooManyPixels.code)
    public static let sourceTooLarge = Self(FailureKind.imageSourceTooLarge.code)
    public static let tooSmall = Self(FailureKind.imageTooSmall.code)
    public static let cannotFit = Self(FailureKind.imageCannotFit.code)
    public static let unreadable = Self(FailureKind.imageUnreadable.code)
    public static let processingFailed = Self(FailureKind.imageProcessingFailed.code)
    /// libvips could not start in this process: the installation's fault, never a photo's.
    public static let libraryFailed = Self(FailureKind.internalError.code)
    /// Outside the worker's path roots, relative, or reached through a symlink out of them.
    public static let pathNotAllowed = Self(FailureKind.pathNotAllowed.code)
    public static let fileNotFound = Self(FailureKind.fileNotFound.code)
    public static let notRegularFile = Self(FailureKind.fileNotRegular.code)
}

/// A file opened or read through MediaFiles, its failure as an ImagingError with the same code.
func fileAccess<T>(_ body: () throws(FileAccessError) -> T) throws(ImagingError) -> T {
    do {
        return try body()
    } catch {
        throw ImagingError(error)
    }
}
