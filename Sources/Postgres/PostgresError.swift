/// Everything that can go wrong talking to PostgreSQL.
///
/// `description` is what a person reads; it never contains the connection string (which may hold
/// a password). `sqlState` lets callers react to specific server errors.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// A stable code (its `rawValue` is what a database or dashboard sees). A struct, not an
    /// enum: codes can be added without breaking anyone's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let connectionFailed = Code("connection_failed")
        public static let connectionLost = Code("connection_lost")
        public static let queryFailed = Code("query_failed")
        public static let unexpectedResult = Code("unexpected_result")
        public static let decodeFailed = Code("decode_failed")
    }

    public let code: Code
    /// The five-character SQLSTATE from the server, when it sent one.
    public let sqlState: String?
    public let message: String

    public init(_ code: Code, _ message: String, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String {
        let state = sqlState.map { " [SQLSTATE \($0)]" } ?? ""
        return "PostgreSQL \(code.rawValue)\(state): \(message)"
    }

    /// The server refused the data itself (SQLSTATE class 22 data exception, 23 constraint
    /// violation, 54 program limit such as a too-large index row): the same values will be
    /// refused again, while other values in the same statement might not be.
    public var isDataError: Bool {
        guard code == .queryFailed, let sqlState else { return false }
        return ["22", "23", "54"].contains(String(sqlState.prefix(2)))
    }

    /// Retrying makes sense when the connection, not the statement, was at fault,
    /// or when the server says the transaction lost a race (serialization, deadlock).
    public var isRetryable: Bool {
        switch code {
        case .connectionFailed, .connectionLost: return true
        case .queryFailed:
            guard let sqlState else { return false }
            return sqlState.hasPrefix("08") || sqlState == "40001" || sqlState == "40P01"
                || sqlState.hasPrefix("57P")
        default: return false
        }
    }
}
