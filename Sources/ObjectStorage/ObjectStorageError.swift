import CurlHTTP
import ErrorCodes

/// What an S3-compatible store refused, or why it could not be asked. The message names the
/// object (or bucket) and, for a refused credential, its key id: never the secret, never a
/// signature. Every message passes through `Redact.text`, which masks the secrets this process
/// holds (the ones a store or a credential source might echo back) and SigV4 fields.
public struct ObjectStorageError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<ObjectStorageError>

    public let code: Code
    public let message: String
    /// The store's own error code (`NoSuchKey`, `SlowDown`, ...), when it answered one.
    public let storeCode: String?
    /// Seconds the store asked to wait (Retry-After), if it said.
    public let retryAfterSeconds: Double?

    public init(_ code: Code, _ message: String, storeCode: String? = nil, retryAfterSeconds: Double? = nil) {
        self.code = code
        self.message = Redact.text(message)
        self.storeCode = storeCode
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { message }

    /// The object's own fault, or the operator's setting: trying again changes nothing.
    public var isRetryable: Bool { code == .unavailable }
}

extension ErrorCode where Owner == ObjectStorageError {
    /// The key is not in the bucket (deleted, renamed, never there).
    public static let noSuchKey = Self("object_not_found")
    /// The bucket does not exist.
    public static let noSuchBucket = Self(FailureKind.bucketNotFound.code)
    /// The credential was refused (AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId, a
    /// session still refused once renewed), or its source would not hand one out: every
    /// object of the bucket will be too, until someone fixes it.
    public static let refused = Self(FailureKind.objectStoreRefused.code)
    /// In an archive storage class (Glacier Flexible Retrieval, Deep Archive), not restored.
    public static let archived = Self(FailureKind.objectArchived.code)
    /// Another 4xx, named by its S3 code: the store will not hand over this object as asked
    /// (an SSE-C object, a key it does not take).
    public static let rejected = Self(FailureKind.objectRejected.code)
    /// SlowDown, 5xx, a timeout, a lost connection: the store's weather.
    public static let unavailable = Self(FailureKind.objectStoreUnavailable.code)
    /// Larger than the caller accepts.
    public static let tooLarge = Self("object_too_large")
    /// 0 bytes.
    public static let empty = Self("object_empty")
    /// Outside the buckets and prefixes the reader may read: a trust-boundary refusal.
    public static let notAllowed = Self("object_not_allowed")
    /// An answer that is not what S3 answers, a setting that cannot be used, or a bucket in a
    /// region it could not be asked in.
    public static let invalid = Self("object_store_invalid")
    /// The reader's task was cancelled (the worker stopping): nothing is known of the store.
    public static let cancelled = Self("object_read_cancelled")
}
