import ErrorCodes

/// Everything that can go wrong talking to PostgreSQL.
///
/// `description` is what a person reads; it never contains the connection string (which may hold
/// a password). `sqlState` lets callers react to specific server errors.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<PostgresError>

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

/// The codes a PostgresError carries.
extension ErrorCode where Owner == PostgresError {
    public static let connectionFailed = Self("connection_failed")
    public static let connectionLost = Self("connection_lost")
    public static let queryFailed = Self("query_failed")
    public static let unexpectedResult = Self("unexpected_result")
    public static let decodeFailed = Self("decode_failed")
}
