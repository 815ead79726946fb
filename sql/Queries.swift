import Foundation

/// Every statement discern sends, from the files of sql/queries/ (docs/sql.md, "Where the
/// statements live"): `Queries.Jobs.claim` is the statement named `claim` in queries/jobs.sql.
/// The BundleSQL plugin writes the constants; this file fills in what a statement takes from
/// elsewhere, written `{{name}}` in its text:
///   - the numbers Swift and SQL both use (`QueueConstants`), filled in at once;
///   - what only the caller knows (a column list declared in Swift), filled by `fill`.
/// Every value a statement works on still travels as a `$n` parameter.
public enum Queries {
    /// `text` with each `{{constant}}` of `QueueConstants.byName` filled in.
    static func resolved(_ text: String) -> String {
        QueueConstants.byName.reduce(text) { text, constant in
            text.replacingOccurrences(of: "{{\(constant.key)}}", with: constant.value)
        }
    }

    /// `statement` with each `{{key}}` replaced by its value; every placeholder must be given,
    /// so a statement never reaches the server half-filled (a value may hold `{{` itself).
    public static func fill(_ statement: String, _ values: [String: String]) -> String {
        let wanted = Set(statement.matches(of: /\{\{([a-z_]+)\}\}/).map { String($0.1) })
        precondition(wanted == Set(values.keys), "a statement's placeholders \(wanted.sorted()) are not the values given \(values.keys.sorted())")
        return values.reduce(statement) { $0.replacingOccurrences(of: "{{\($1.key)}}", with: $1.value) }
    }
}

/// The numbers both Swift and the statements use, in one place. sql/functions/claim.sql and the
/// `jobs_claimable_alone` index keep `crashesBeforeAlone` as a literal 3 (the planner matches an
/// index predicate only to a literal): a test holds them equal.
public enum QueueConstants {
    /// Shared crashes after which a job runs alone (`discern.claim`).
    public static let crashesBeforeAlone = 3
    /// Crashes while preparing its file alone after which a job is dead as `worker_crashed`.
    public static let soloCrashesBeforeDead = 3
    /// Shared crashes after which a job is dead as `worker_crashed` all the same: all but the
    /// first `crashesBeforeAlone` of them with the job alone on its worker, its file prepared.
    public static let sharedCrashesBeforeDead = 20
    /// Attempts a job gets back at most when its service could not start them (`jobs.given_back`);
    /// Swift's alone (`FailureDecision`), as is `outageHandBacks`.
    public static let maxHandBacks = 10
    /// Give-backs of a last attempt the service (or the system) failed, after which it counts
    /// even with no sign the service works: 10 over about an hour, then 140 at most 10 minutes
    /// apart, about a day in all.
    public static let outageHandBacks = 150
    /// Seconds a worker not heard from since a restart or failover has to reconnect before its
    /// jobs are taken for a dead worker's: a loaded machine's workers took more than six.
    public static let reconnectSeconds = 30
    /// The advisory-lock namespace (`classid`) of the workers' presence locks: "disc".
    public static let presenceNamespace: Int32 = 0x6469_7363
    /// The background band: jobs of this priority and above (re-analyses, near-duplicates) run
    /// only when no other job of their service waits, and the claim's oldest-first share never
    /// serves them. claim.sql, reanalyse.sql and the `jobs_claimable_oldest_ordinary` index keep it
    /// as a literal 30000 (an index predicate matches only a literal): a test holds them equal.
    public static let backgroundPriority = 30000
    /// Jobs an operator's action names one by one in its record; more are only counted.
    public static let namedJobs = 1000
    /// The advisory lock discern's migrations hold (arbitrary but fixed): `migrate` and the
    /// script of `migrate --sql` take the same one.
    public static let migrationLockKey: Int64 = 0x6469_7363_6572_6E00
    /// How long a migration step waits for a lock before it lets go (and `migrate` tries again).
    public static let migrationLockTimeoutSeconds = 5

    static let byName: [String: String] = [
        "crashes_before_alone": String(crashesBeforeAlone),
        "solo_crashes_before_dead": String(soloCrashesBeforeDead),
        "shared_crashes_before_dead": String(sharedCrashesBeforeDead),
        "reconnect_seconds": String(reconnectSeconds),
        "presence_namespace": String(presenceNamespace),
        "named_jobs": String(namedJobs),
        "background_priority": String(backgroundPriority),
        "migration_lock_key": String(migrationLockKey),
        "migration_lock_timeout_seconds": String(migrationLockTimeoutSeconds)
    ]
}
