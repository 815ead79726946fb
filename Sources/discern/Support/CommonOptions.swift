import ArgumentParser
import Foundation
import Logging

/// Options every database command shares.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: "PostgreSQL URL or key=value conninfo. Default: $DISCERN_DATABASE_URL, else libpq's PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD.")
    var databaseURL: String?

    // Read before parsing by ConfigurationFile (so the file can set every default); declared
    // here only so `--help` shows it.
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "Read NAME=value settings (DISCERN_*, PG*) from this file; flags and the environment win. Default: $DISCERN_CONFIG.",
            valueName: "file"))
    var configFile: String?

    var conninfo: String {
        databaseURL ?? Setting.environment["DISCERN_DATABASE_URL"] ?? ""
    }
}

struct LogOptions: ParsableArguments {
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. Default: $DISCERN_LOG_LEVEL, else info.")
    var logLevel: String = Setting.environment["DISCERN_LOG_LEVEL"] ?? "info"

    @Option(help: "Log format on standard error: logfmt or json. Default: $DISCERN_LOG_FORMAT, else logfmt.")
    var logFormat: String = Setting.environment["DISCERN_LOG_FORMAT"] ?? "logfmt"

    func validate() throws {
        guard ["logfmt", "json"].contains(logFormat) else { throw ValidationError("--log-format must be logfmt or json") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func makeLogger(_ label: String) -> Logger {
        LogfmtHandler.bootstrapOnce(json: logFormat == "json")
        var logger = Logger(label: label)
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        return logger
    }
}
