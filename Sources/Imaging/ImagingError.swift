/// Why an image could not be prepared. `kind` is the `error_kind` stored with a dead job.
public struct ImagingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stable code (its `rawValue` is what a database or dashboard sees). A struct, not an
    /// enum: codes can be added without breaking anyone's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let empty = Code("image_empty")
        public static let unsupportedFormat = Code("image_unsupported_format")
        public static let undecodable = Code("image_undecodable")
        public static let truncated = Code("image_truncated")
        public static let tooManyPixels = Code("image_too_many_pixels")
        public static let sourceTooLarge = Code("image_source_too_large")
        public static let tooSmall = Code("image_too_small")
        public static let cannotFit = Code("image_cannot_fit")
        public static let unreadable = Code("image_unreadable")
        public static let processingFailed = Code("image_processing_failed")
        /// Outside the worker's path roots, relative, or reached through a symlink out of them.
        public static let pathNotAllowed = Code("path_not_allowed")
        public static let fileNotFound = Code("file_not_found")
        public static let notRegularFile = Code("file_not_regular")
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
    /// arriving: the worker retries it once, see `FilePreparation`.)
    public var isRetryable: Bool { code == .unreadable }
}
