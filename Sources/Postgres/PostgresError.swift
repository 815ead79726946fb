import Foundation
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

    /// The server's own sentence, without its "ERROR:" and the PL/pgSQL context after it: what a
    /// function raised for an operator to read (`RAISE ... USING ERRCODE = '22023'`).
    public var primaryMessage: String {
        var text = Substring(message)
        if let start = text.range(of: "ERROR:") { text = text[start.upperBound...] }
        if let context = text.range(of: "CONTEXT:") { text = text[..<context.lowerBound] }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server refused the data itself (SQLSTATE class 22 data exception, 23 constraint
    /// violation, 54 program limit such as a too-large index row): the same values will be
    /// refused again, while other values in the same statement might not be.
    public var isDataError: Bool {
        guard code == .queryFailed, let sqlState else { return false }
        return ["22", "23", "54"].contains(String(sqlState.prefix(2)))
    }

    /// Retrying makes sense when the connection, not the statement, was at fault, when the
    /// server says the transaction lost a race (serialization, deadlock), when it is short of a
    /// resource for now (53: a full disk, memory, connections), or when the connection reached
    /// a server that cannot write (25006: a standby, during a failover; see `needsNewConnection`).
    public var isRetryable: Bool {
        switch code {
        case .connectionFailed, .connectionLost: return true
        case .queryFailed:
            guard let sqlState else { return false }
            return sqlState.hasPrefix("08") || sqlState == "40001" || sqlState == "40P01"
                || sqlState.hasPrefix("57P") || sqlState.hasPrefix("53") || sqlState == Self.readOnlyTransaction
        default: return false
        }
    }

    /// The statement waited too long and was stopped: a `lock_timeout` (55P03) or a
    /// `statement_timeout` ran out, or an administrator cancelled it (57014), most often behind
    /// somebody else's lock (a long transaction, a migration, a VACUUM FULL). Worth a few more
    /// tries, not endless ones: a statement slow in itself will be stopped again.
    public var isContention: Bool {
        code == .queryFailed && (sqlState == "55P03" || sqlState == "57014")
    }

    /// The connection is alive but reaches a server that can only read (a primary turned standby,
    /// a connection string's other host): a new connection finds the one that writes
    /// (`target_session_attrs=read-write`).
    public var needsNewConnection: Bool { sqlState == Self.readOnlyTransaction }

    static let readOnlyTransaction = "25006"
}

/// The codes a PostgresError carries.
extension ErrorCode where Owner == PostgresError {
    public static let connectionFailed = Self("connection_failed")
    public static let connectionLost = Self("connection_lost")
    public static let queryFailed = Self("query_failed")
    public static let unexpectedResult = Self("unexpected_result")
    public static let decodeFailed = Self("decode_failed")
}
