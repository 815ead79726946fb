/// Errors of the job queue itself (not of the jobs it carries).
public struct QueueError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        case migrationFailed = "migration_failed"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
