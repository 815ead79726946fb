import ErrorCodes

/// Errors of the job queue itself (not of the jobs it carries).
public struct QueueError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<QueueError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The codes a QueueError carries.
extension ErrorCode where Owner == QueueError {
    public static let migrationFailed = Self("migration_failed")
    /// The database lacks the discern schema, or holds an older version than this binary.
    public static let schemaNotMigrated = Self("schema_not_migrated")
    /// A newer release applied a migration marked breaking, which this binary cannot run beside.
    public static let schemaTooNew = Self("schema_too_new")
    /// A selection the database refused: an unknown batch, a malformed name.
    public static let invalidSelection = Self("invalid_selection")
}
