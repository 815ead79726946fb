/// A code of an error that can fail a job (preparing a file, calling a service): it carries the
/// registry's row it stands for (`FailureKind`), so no code is looked up by name and none can
/// stand for a kind the registry lacks. Generic over its error, as `ErrorCode` is, so each error
/// keeps its own set (`FailureCode<ImagingError>.truncated`).
public struct FailureCode<Owner>: Hashable, Sendable, CustomStringConvertible {
    public let kind: FailureKind

    /// Codes are declared by their owner, in a constrained extension (`where Owner == ...`).
    public init(_ kind: FailureKind) { self.kind = kind }

    /// The `error_kind` stored with the job.
    public var rawValue: String { kind.code }
    public var description: String { kind.code }
}
