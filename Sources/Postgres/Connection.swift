import Foundation
import CLibPQ
import DedicatedThreads

/// One libpq connection. Owns its `PGconn` and frees it exactly once, in `deinit`.
///
/// Every call blocks, so a `Connection` lives on one dedicated thread (see `Database`) and is
/// deliberately not `Sendable`.
public final class Connection {
    let handle: OpaquePointer
    /// Statements prepared on this session, by their text: see `query(prepared:_:)`.
    private var preparedNames: [String: String] = [:]
    /// Names are never reused, even for a statement prepared again.
    private var preparedCount = 0
    private let usesPreparedStatements: Bool

    /// - Parameters:
    ///   - conninfo: a `postgresql://` URL or `key=value` pairs; empty means libpq's own
    ///     environment variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, ...).
    ///   - applicationName: shown in `pg_stat_activity`, unless the conninfo names one.
    ///   - session: server options and whether to prepare statements (`SessionOptions`).
    public init(conninfo: String, applicationName: String = "discern", session: SessionOptions = SessionOptions()) throws {
        // discern's defaults come first; anything the conninfo says overrides them. TCP
        // keepalives and a user timeout notice a half-open connection (a failed-over server, a
        // dropped NAT entry) in about a minute instead of hanging.
        let settings: [(String, String)] =
            [
                ("application_name", applicationName), ("connect_timeout", "10"),
                ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
                ("tcp_user_timeout", "60000")
            ] + (session.serverOptions.map { [("options", $0)] } ?? []) + [("dbname", conninfo)]
        let handle = withCStrings(settings.map(\.0)) { keywords in
            withCStrings(settings.map(\.1)) { values in
                PQconnectdbParams(keywords + [nil], values + [nil], 1)
            }
        }
        guard let handle else {
            throw PostgresError(.connectionFailed, "libpq could not allocate a connection")
        }
        // libpq allocates even on failure: PQfinish is owed either way.
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Connection.errorText(handle)
            PQfinish(handle)
            throw PostgresError(.connectionFailed, message)
        }
        self.handle = handle
        self.usesPreparedStatements = session.preparedStatements
        // Server NOTICEs ("schema already exists, skipping") are not for the terminal.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // The worker's SQL is written for UTC timestamps and a fixed search path. A server that
        // drops the session here (shutting down, failing over) failed the connection: retryable.
        do {
            _ = try query("SELECT set_config('timezone', 'UTC', false)")
        } catch let error as PostgresError {
            throw PostgresError(.connectionFailed, error.message, sqlState: error.sqlState)
        }
    }

    deinit { PQfinish(handle) }

    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs one statement with its parameters sent separately (`PQexecParams`, text format).
    @discardableResult
    func query(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> Rows {
        BlockingCallAudit.check("PQexecParams")
        let result = withParameters(parameters) { values, lengths, formats in
            PQexecParams(handle, sql, Int32(values.count), nil, values, lengths, formats, 0)
        }
        return try consume(result)
    }

    /// Runs a statement the session prepared the first time it saw it (`PQprepare`, then
    /// `PQexecPrepared`): for the queue's hot statements, which then skip parsing and planning
    /// on every call. PostgreSQL re-plans by itself when the schema changes. Behind PgBouncer in
    /// transaction mode this needs PgBouncer 1.21 or later with `max_prepared_statements` set.
    /// A statement the server no longer knows (`DEALLOCATE ALL`, a pooler's session reset) is
    /// prepared again, once. Without prepared statements (`SessionOptions`) this is `query`.
    @discardableResult
    func query(prepared sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> Rows {
        guard usesPreparedStatements else { return try query(sql, parameters) }
        BlockingCallAudit.check("PQexecPrepared")
        do {
            return try executePrepared(sql, parameters)
        } catch let error as PostgresError where error.sqlState == "26000" || error.sqlState == "0A000" {
            // 26000: the statement is gone (a pooler's other session); 0A000: "cached plan must
            // not change result type" (a function changed its result by a migration while this
            // session had its statement prepared). Prepared again, once.
            preparedNames[sql] = nil
            return try executePrepared(sql, parameters)
        }
    }

    private func executePrepared(_ sql: String, _ parameters: [(any PostgresEncodable)?]) throws -> Rows {
        let name: String
        if let known = preparedNames[sql] {
            name = known
        } else {
            preparedCount += 1
            name = "discern_\(preparedCount)"
            _ = try consume(PQprepare(handle, name, sql, 0, nil))
            preparedNames[sql] = name
        }
        let result = withParameters(parameters) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(values.count), values, lengths, formats, 0)
        }
        return try consume(result)
    }

    /// Runs a trusted script of several statements (migrations shipped with discern). Never
    /// pass text that came from outside: it has no parameters.
    public func executeScript(_ sql: String) throws {
        _ = try consume(PQexec(handle, sql))
    }

    /// Streams rows into `COPY ... FROM STDIN` (text format): the fastest way in for many rows.
    /// Each row is its columns' values, NULL as nil; escaping is done here. Returns the rows copied.
    @discardableResult
    public func copyIn(_ sql: String, rows: some Sequence<[String?]>) throws -> Int {
        BlockingCallAudit.check("PQputCopyData")
        _ = try consume(PQexec(handle, sql), expecting: PGRES_COPY_IN)
        var buffer = ""
        buffer.reserveCapacity(1 << 20)
        func flush() throws {
            guard !buffer.isEmpty else { return }
            let sent = buffer.withCString { PQputCopyData(handle, $0, Int32(strlen($0))) }
            buffer.removeAll(keepingCapacity: true)
            guard sent == 1 else { throw PostgresError(.connectionLost, Connection.errorText(handle)) }
        }
        for row in rows {
            buffer += row.map { $0.map(Connection.copyEscaped) ?? "\\N" }.joined(separator: "\t") + "\n"
            if buffer.utf8.count >= 1 << 20 { try flush() }
        }
        try flush()
        guard PQputCopyEnd(handle, nil) == 1 else { throw PostgresError(.connectionLost, Connection.errorText(handle)) }
        let rows = try consume(PQgetResult(handle))
        while let extra = PQgetResult(handle) { PQclear(extra) }
        return rows.affected
    }

    /// COPY's text format: backslash, tab, newline and carriage return escaped. Byte by byte:
    /// Swift's Characters see "\r\n" as one, equal to neither "\r" nor "\n", so a file named with
    /// a CR LF went through unescaped and PostgreSQL refused the whole COPY.
    static func copyEscaped(_ value: String) -> String {
        let special: (UInt8) -> Bool = {
            $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
        guard value.utf8.contains(where: special) else { return value }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\t"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case UInt8(ascii: "\n"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): escaped += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Runs `body` in a transaction with JIT compilation off: for reports, status and pages that
    /// aggregate many index entries once. On a large table PostgreSQL's cost estimate starts the
    /// JIT compiler, which then takes longer (150-250 ms) than the query itself. `SET LOCAL`
    /// instead of a startup option: it works through a transaction-mode pooler.
    public func reading<T>(statementTimeout: String? = nil, _ body: (Connection) throws -> T) throws -> T {
        try transaction(statementTimeout: statementTimeout) { connection in
            try connection.query("SET LOCAL jit = off")
            return try body(connection)
        }
    }

    /// Runs `body` inside BEGIN ... COMMIT; any error rolls back and is rethrown. With
    /// `statementTimeout` (PostgreSQL's units: "10s"), no statement of it runs longer: set for
    /// this transaction only, so it holds through a transaction pooler too.
    public func transaction<T>(statementTimeout: String? = nil, _ body: (Connection) throws -> T) throws -> T {
        try query("BEGIN")
        do {
            if let statementTimeout { try execute("SELECT set_config('statement_timeout', \(statementTimeout), true)") }
            let value = try body(self)
            try query("COMMIT")
            return value
        } catch {
            if isHealthy { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    private func consume(_ result: OpaquePointer?, expecting expected: ExecStatusType? = nil) throws -> Rows {
        guard let result else {
            throw PostgresError(isHealthy ? .queryFailed : .connectionLost, Connection.errorText(handle))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        if let expected, status == expected { return Rows(columns: [], values: [], affected: 0) }
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Connection.rows(of: result)
        default:
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = String(cString: PQresultErrorMessage(result)).trimmingTrailingWhitespace()
            let code: PostgresError.Code = isHealthy ? .queryFailed : .connectionLost
            throw PostgresError(code, message.isEmpty ? Connection.errorText(handle) : message, sqlState: sqlState)
        }
    }

    private static func rows(of result: OpaquePointer) -> Rows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var values: [[String?]] = []
        values.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            values.append(
                (0..<columnCount).map { column in
                    if PQgetisnull(result, Int32(row), Int32(column)) == 1 { return nil }
                    return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                })
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return Rows(columns: columns, values: values, affected: affected)
    }

    private static func errorText(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle)).trimmingTrailingWhitespace()
    }
}

/// Lends libpq the parameters for the duration of `body` only: each value's bytes, their
/// lengths (read for binary values only) and formats (0 text, 1 binary).
func withParameters<R>(
    _ parameters: [(any PostgresEncodable)?],
    _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> R
) -> R {
    var owned: [UnsafeMutablePointer<CChar>?] = []
    var lengths: [Int32] = [], formats: [Int32] = []
    owned.reserveCapacity(parameters.count)
    defer { owned.forEach { free($0) } }
    for parameter in parameters {
        guard let parameter else {
            owned.append(nil); lengths.append(0); formats.append(0)
            continue
        }
        if let binary = parameter.postgresBinary {
            let buffer = malloc(max(binary.count, 1))!.assumingMemoryBound(to: CChar.self)
            binary.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count) }
            }
            owned.append(buffer); lengths.append(Int32(binary.count)); formats.append(1)
        } else {
            owned.append(strdup(parameter.postgresText)); lengths.append(0); formats.append(0)
        }
    }
    return body(owned.map { UnsafePointer($0) }, lengths, formats)
}

/// Lends C strings for the parameters for the duration of `body` only.
func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let owned: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } }
    defer { owned.forEach { free($0) } }
    return body(owned.map { UnsafePointer($0) })
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
