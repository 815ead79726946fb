import ArgumentParser

/// discern's exit statuses (docs/operations.md), sysexits(3) where one fits, so scripts and
/// systemd can tell "the run finished but some jobs died" from "the run could not start".
enum ExitStatus {
    /// Every job the run touched succeeded (or nothing was to do).
    static let success: Int32 = 0
    /// The run finished, but some jobs ended dead (`work --drain`).
    static let someJobsDead: Int32 = 1
    /// `discern batches wait`: the timeout came before the batch ended.
    static let timedOut: Int32 = 2
    /// A flag, setting, configuration file or path given is wrong (EX_USAGE).
    static let usage: Int32 = 64
    /// PostgreSQL cannot be reached, or its schema is missing or older than this binary; or a
    /// bucket's store stopped answering part way through `discern enqueue` (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
    /// Anything else: an unexpected failure, worth a bug report (EX_SOFTWARE).
    static let software: Int32 = 70
    /// A newer release migrated the database with a change this one cannot run beside
    /// (EX_PROTOCOL: the database speaks a newer protocol): upgrade discern.
    static let schemaTooNew: Int32 = 76
}
