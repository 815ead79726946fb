/// A stable error code: its `rawValue` is what a database, a log or a dashboard sees. A struct,
/// not an enum, so codes can be added without breaking anyone's `switch`; generic over the
/// error it belongs to, so each module's error keeps its own set (`ErrorCode<QueueError>`
/// offers only the queue's codes) while the type is written once.
public struct ErrorCode<Owner>: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Codes are declared by their owner, in a constrained extension (`where Owner == ...`).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}
