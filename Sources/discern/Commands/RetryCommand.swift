import ArgumentParser
import JobQueue
import Postgres

/// The filters `discern jobs`, retry, cancel and delete share (discern.matching_jobs).
struct JobFilterOptions: ParsableArguments {
    @Option(help: "Only jobs of this batch.")
    var batch: String?

    @Option(help: "Only jobs whose last error is of this kind (as `discern status` lists them), e.g. http_5xx.")
    var kind: String?

    @Option(name: [.customLong("service"), .customLong("backend")], help: ArgumentHelp("Only jobs of this service.", valueName: "service"))
    var service: ServiceChoice?

    @Option(help: "Only jobs whose file name starts with this, case aside (IMG_12 finds /photos/IMG_1234.jpg).")
    var file: String?

    @Option(help: "Only jobs enqueued on or after this day, YYYY-MM-DD.")
    var from: String?

    @Option(help: "Only jobs enqueued on or before this day, YYYY-MM-DD.")
    var to: String?

    func validate() throws {
        for (name, day) in [("--from", from), ("--to", to)] {
            if let day, JobControl.Selection.day(day) == nil { throw ValidationError("\(name) takes a day as YYYY-MM-DD, not \(day)") }
        }
    }
}

/// Which jobs retry, cancel and delete act on: job ids, or filters.
struct JobSelectionOptions: ParsableArguments {
    @Argument(help: "Job ids (as `discern jobs` shows them).")
    var ids: [Int64] = []

    @OptionGroup var filter: JobFilterOptions

    var selection: JobControl.Selection {
        JobControl.Selection(
            ids: ids, batch: filter.batch, errorKind: filter.kind, service: filter.service?.rawValue,
            file: filter.file, fromDay: filter.from, toDay: filter.to)
    }

    func validate() throws {
        guard !selection.isEmpty else {
            throw ValidationError("name job ids, or choose jobs with --batch, --kind, --service, --file, --from or --to")
        }
        guard ids.allSatisfy({ $0 > 0 }) else { throw ValidationError("job ids are positive whole numbers") }
    }

    /// Applies `action` to the selection: jobs named by id in one transaction, a selection by
    /// filters a thousand jobs a transaction (JobControl.inChunks). Prints how many jobs it
    /// changed and, by state, what it left alone.
    func apply(_ conninfo: String, _ action: JobControl.BulkAction, done verb: String) async throws {
        let selection = self.selection, by = PauseCommand.operator
        let database = Database(conninfo: conninfo)
        let changed = try await JobControl.perform(action, selection, by: by) { body in try await database.transaction(body) }
        let states = try await database.withConnection { try JobControl.states($0, selection) }
        print("\(verb) \(changed) job(s)")
        if let rest = Self.leftAlone(states, touchable: Set(action.touchedStates + [action.resultingState].compactMap { $0 })) { print(rest) }
    }

    /// "left alone: 3 succeeded, 1 running" for the states an operation did not touch.
    static func leftAlone(_ states: [String: Int], touchable: Set<String>) -> String? {
        let rest = states.filter { !touchable.contains($0.key) && $0.value > 0 }.sorted { $0.key < $1.key }
        return rest.isEmpty ? nil : "left alone: " + rest.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
}

struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Put dead jobs back in the queue with a fresh set of attempts (cancelled ones too, when named by id).",
        discussion:
            "Their error history is kept (discern jobs show ID). Examples: discern retry 41 42; discern retry --batch nightly-2026-11-22 --kind http_5xx"
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var select: JobSelectionOptions

    func run() async throws {
        try await select.apply(database.conninfo, .retry, done: "retried")
    }
}

struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel jobs that have not finished; a worker running one drops its work.",
        discussion: "Examples: discern cancel 41; discern cancel --batch nightly-2026-11-22 --kind timeout. Undo with discern retry ID.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var select: JobSelectionOptions

    func run() async throws {
        try await select.apply(database.conninfo, .cancel, done: "cancelled")
    }
}

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete jobs that are over without a result: dead or cancelled (never a waiting, running or succeeded one).",
        discussion:
            "Recorded in the operator log. Examples: discern delete 41; discern delete --batch mistake --service ooto; discern delete --kind unsupported_image --to 2026-11-01"
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var select: JobSelectionOptions

    func run() async throws {
        try await select.apply(database.conninfo, .delete, done: "deleted")
    }
}
