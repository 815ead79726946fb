import ErrorCodes

/// Why enqueueing cannot take a path or a file: the one error of this module.
public struct EnqueueError: Error, CustomStringConvertible, Sendable, Equatable {
    public typealias Code = ErrorCode<EnqueueError>

    public let code: Code
    public let description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}

/// The codes an EnqueueError carries.
extension ErrorCode where Owner == EnqueueError {
    /// A path given on the command line cannot be searched (missing, outside the roots, not an image).
    public static let badPath = Self("enqueue_bad_path")
    /// A file found could not be opened as a regular file under the roots to hash it.
    public static let unreadable = Self("enqueue_unreadable")
    /// The bucket's store did not answer a page of the listing, after its retries.
    public static let storeUnavailable = Self("enqueue_store_unavailable")
}
