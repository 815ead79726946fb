import Foundation
import Postgres
import SQLSchema

/// Operators' hands on jobs: retry dead ones, cancel unfinished ones, delete finished failures,
/// chosen by id or by filters (discern.matching_jobs, as the jobs list). Each goes through
/// discern.retry / discern.cancel / discern.delete_jobs (the SQL interface psql users have).
/// Jobs named by id are changed in one statement; a selection by filters is changed a thousand
/// jobs a statement (`inChunks`), so acting on 100,000 jobs never holds their locks for long.
public enum JobControl {
    /// Which jobs: every field given must match (an empty selection matches nothing).
    public struct Selection: Sendable {
        public var ids: [Int64] = []
        public var batch: String?
        public var errorKind: String?
        public var service: String?
        /// Narrows a filter to one state (the jobs page's filter): on its own it selects nothing.
        public var state: String?
        /// The start of the file's name, case aside.
        public var file: String?
        /// Enqueued on or after / on or before these days (YYYY-MM-DD).
        public var fromDay: String?
        public var toDay: String?

        public init(
            ids: [Int64] = [], batch: String? = nil, errorKind: String? = nil, service: String? = nil, state: String? = nil,
            file: String? = nil, fromDay: String? = nil, toDay: String? = nil
        ) {
            (self.ids, self.batch, self.errorKind, self.service, self.state) = (ids, batch, errorKind, service, state)
            (self.file, self.fromDay, self.toDay) = (file, Self.day(fromDay), Self.day(toDay))
        }

        /// A day as a filter takes it, or nil: YYYY-MM-DD, a day that exists (2026-02-30 does not).
        public static func day(_ text: String?) -> String? {
            guard let text, text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil,
                let date = try? Date("\(text)T00:00:00Z", strategy: .iso8601),
                date.formatted(.iso8601.year().month().day()) == text
            else { return nil }
            return text
        }

        public var isEmpty: Bool {
            ids.isEmpty && batch == nil && errorKind == nil && service == nil && file == nil && fromDay == nil && toDay == nil
        }

        /// As a person reads it: "jobs 41, 42" or "batch nightly, kind http_5xx, service ooto".
        public var scope: String {
            let named =
                ids.isEmpty
                ? []
                : [
                    "job\(ids.count == 1 ? "" : "s") " + ids.sorted().prefix(20).map(String.init).joined(separator: ", ")
                        + (ids.count > 20 ? " and \(ids.count - 20) more" : "")
                ]
            return
                (named
                + [
                    batch.map { "batch \($0)" }, errorKind.map { "kind \($0)" }, service.map { "service \($0)" },
                    state.map { "state \($0)" }, file.map { "file \($0)…" }, fromDay.map { "from \($0)" }, toDay.map { "to \($0)" }
                ]
                .compactMap { $0 })
                .joined(separator: ", ")
        }

        fileprivate var idList: [Int]? { ids.isEmpty ? nil : ids.map(Int.init) }
    }

    /// What an operator does to jobs: each action's SQL function and the states it changes.
    public enum BulkAction: String, Sendable {
        /// Retries dead jobs with a fresh set of attempts (a cancelled job too, when named by
        /// id); their error history is kept.
        case retry
        /// Cancels jobs that have not finished (a running job's worker finds its lease gone and
        /// discards its work).
        case cancel
        /// Deletes jobs that are over without a result: dead or cancelled (never one that
        /// succeeded, waits or runs).
        case delete

        /// The states a filter's jobs must be in to be changed (what the confirmation counts).
        public var touchedStates: [String] {
            switch self {
            case .retry: ["dead"]
            case .cancel: ["available", "running"]
            case .delete: ["dead", "cancelled"]
            }
        }

        /// The state a changed job is in afterwards; nil when it is gone.
        public var resultingState: String? {
            switch self {
            case .retry: "available"
            case .cancel: "cancelled"
            case .delete: nil
            }
        }
    }

    /// `action` over the selection in one statement (jobs named by id), recorded `by` whom
    /// (discern.operator_actions) in the same statement. Returns how many jobs changed.
    public static func apply(_ action: BulkAction, _ connection: Connection, _ selection: Selection, by actor: String) throws -> Int {
        try act(connection, selection, action, by: actor)
    }

    /// Applies `action` to the selection, as the CLI and the console both do: jobs named by id
    /// in one transaction, a selection by filters a thousand jobs a transaction (`inChunks`).
    /// `transaction` runs its body in a transaction of the caller's connection. Returns how many
    /// jobs it changed.
    public static func perform(
        _ action: BulkAction, _ selection: Selection, by actor: String,
        transaction: (@escaping @Sendable (Connection) throws -> Int) async throws -> Int
    ) async throws -> Int {
        guard selection.ids.isEmpty else { return try await transaction { try apply(action, $0, selection, by: actor) } }
        return try await inChunks(action, selection, by: actor, transaction: transaction)
    }

    /// `action`'s function over at most `limit` selected jobs in its states, and its record
    /// when it changed any (unless `logged` is false: `inChunks` records the whole once).
    private static func act(
        _ connection: Connection, _ selection: Selection, _ action: BulkAction, by actor: String,
        limit: Int? = nil, logged: Bool = true
    ) throws -> Int {
        guard !selection.isEmpty else { return 0 }
        let s = selection
        return try connection.run(
            Queries.JobControl.Apply(
                ids: s.idList.map { BinaryArray($0) }, batch: s.batch, errorKind: s.errorKind, service: s.service, state: s.state, file: s.file,
                fromDay: s.fromDay,
                toDay: s.toDay, actor: String(actor.prefix(200)), action: action.rawValue, scope: s.scope, limit: limit, logged: logged)
        ).first?.n ?? 0
    }

    /// How many jobs a statement of `inChunks` changes at most.
    public static let chunk = 1000

    /// An action over a selection by filters, `chunk` jobs a transaction, so no
    /// statement holds many locks for long while workers claim; one line in the operator log
    /// for the whole. `transaction` runs one chunk in a transaction of the caller's (the
    /// console's, with its statement timeout). Returns how many jobs changed.
    public static func inChunks(
        _ action: BulkAction, _ selection: Selection, by actor: String,
        transaction: (@escaping @Sendable (Connection) throws -> Int) async throws -> Int
    ) async throws -> Int {
        guard !selection.isEmpty else { return 0 }
        var total = 0
        // Jobs changed by a chunk leave its states, so each chunk takes the next ones; a bound
        // keeps a job that dies again at once from being taken forever.
        let ceiling = try await transaction { try JobControl.states($0, selection).values.reduce(0, +) } / chunk + 2
        for _ in 0..<ceiling {
            let changed = try await transaction {
                try act($0, selection, action, by: actor, limit: chunk, logged: false)
            }
            total += changed
            if changed < chunk { break }
        }
        if total > 0 {
            let count = total
            _ = try await transaction { connection in
                try OperatorLog.record(connection, actor: actor, action: action.rawValue, scope: selection.scope, jobs: count, batch: selection.batch)
                return 0
            }
        }
        return total
    }

    /// How many jobs of the selection are in each state: what a retry or cancel left alone.
    public static func states(_ connection: Connection, _ selection: Selection) throws -> [String: Int] {
        guard !selection.isEmpty else { return [:] }
        var states: [String: Int] = [:]
        let s = selection
        let rows = try connection.run(
            Queries.JobControl.StatesMatching(
                ids: s.idList.map { BinaryArray($0) }, batch: s.batch, errorKind: s.errorKind, service: s.service, state: s.state, file: s.file,
                fromDay: s.fromDay,
                toDay: s.toDay))
        for row in rows { states[row.state] = row.n }
        return states
    }
}
