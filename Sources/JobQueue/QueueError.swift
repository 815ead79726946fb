/// Errors of the job queue itself (not of the jobs it carries).
public struct QueueError: Error, CustomStringConvertible, Sendable {
    /// A stable code (its `rawValue` is what a database or dashboard sees). A struct, not an
    /// enum: codes can be added without breaking anyone's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let migrationFailed = Code("migration_failed")
        /// The database lacks the discern schema, or holds an older version than this binary.
        public static let schemaNotMigrated = Code("schema_not_migrated")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
