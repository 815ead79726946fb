import CurlHTTP

/// A credential. It prints as `<redacted>` wherever it ends up: logs, errors, `dump`; and should
/// a service echo it back, `Redact.text` masks it in the message made of the answer.
public struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String

    public init(_ value: String) {
        self.value = value
        Redact.remember(secret: value)
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: []) }
    public var isEmpty: Bool { value.isEmpty }
    /// The value itself, for the one place that must compare or send it; never log it.
    public var plainText: String { value }
}
