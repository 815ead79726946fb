import ErrorCodes

/// Why a job's file could not be opened or read. `kind` is the `error_kind` stored with a dead
/// job: the same codes as when Imaging opened files itself, so dashboards and filters keep them.
public struct FileAccessError: Error, CustomStringConvertible, Sendable, Equatable {
    public typealias Code = FailureCode<FileAccessError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var kind: String { code.rawValue }
    public var description: String { message }
}

/// The codes a FileAccessError carries.
extension FailureCode where Owner == FileAccessError {
    /// Outside the path roots, relative, or reached through a symlink out of them.
    public static let pathNotAllowed = Self(.pathNotAllowed)
    public static let fileNotFound = Self(.fileNotFound)
    public static let notRegularFile = Self(.fileNotRegular)
    /// An I/O error: the one failure that may get better by itself.
    public static let unreadable = Self(.imageUnreadable)
    /// The file shrank while it was read (it is being written).
    public static let truncated = Self(.imageTruncated)
}
