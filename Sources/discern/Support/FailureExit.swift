import ArgumentParser
import Enqueueing
import Foundation
import JobQueue
import Postgres

/// Turns an error that ended a command into one line on standard error (plus a hint where one
/// helps) and the documented exit status (ExitStatus, docs/operations.md).
enum FailureExit {
    static func exit(for error: any Error) -> Never {
        switch error {
        case is ExitCode, is CleanExit:
            Discern.exit(withError: error)
        case let error as EnqueueError where error.code == .storeUnavailable:
            finish(ExitStatus.unavailable, "\(error)")
        case is SettingError, is EnqueueError:
            finish(ExitStatus.usage, "\(error)")
        case let error as QueueError where error.code == .schemaNotMigrated:
            finish(ExitStatus.unavailable, error.message)
        case let error as QueueError where error.code == .schemaTooNew:
            finish(ExitStatus.schemaTooNew, error.message)
        case let error as QueueError where error.code == .invalidSelection:
            finish(ExitStatus.usage, error.message)
        case let error as PostgresError:
            let (status, hint) = advice(error)
            finish(status, "\(error)", hint: hint)
        default:
            // ArgumentParser's own errors (a bad flag, a failed validate()) keep their usage text.
            if Discern.exitCode(for: error) != .failure { Discern.exit(withError: error) }
            finish(ExitStatus.software, "\(error)")
        }
    }

    /// What a database error means for the person at the terminal.
    static func advice(_ error: PostgresError) -> (Int32, String?) {
        if error.code == .connectionFailed || error.code == .connectionLost || error.sqlState?.hasPrefix("08") == true {
            return (
                ExitStatus.unavailable,
                "check --database-url or DISCERN_DATABASE_URL (or PGHOST, PGPORT, PGUSER, PGDATABASE) and that PostgreSQL is up"
            )
        }
        switch error.sqlState {
        case "42P01", "3F000", "42883":  // undefined table, undefined schema, undefined function
            return (ExitStatus.unavailable, "the discern schema is missing or older than this binary: run `discern migrate` first")
        case "42501":
            return (ExitStatus.unavailable, "the database role lacks a privilege this command needs (roles: docs/operations.md)")
        default:
            return (ExitStatus.software, nil)
        }
    }

    private static func finish(_ status: Int32, _ message: String, hint: String? = nil) -> Never {
        // libpq's messages span lines ("...failed: refused\n\tIs the server running"): one line.
        let flat = message.split(whereSeparator: { $0.isNewline || $0 == "\t" }).joined(separator: " ")
        var text = "error: \(TerminalText.safe(flat))\n"
        if let hint { text += "hint: \(hint)\n" }
        StandardError.write(text)
        Foundation.exit(status)
    }
}
