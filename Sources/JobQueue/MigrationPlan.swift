import Foundation
import Postgres
import SQLSchema

/// What `discern migrate` would do to one database, read from it: each step one script run in
/// its own transaction. `migrate` runs the steps, `migrate --sql` prints them for a DBA's own
/// tools, `migrate --status` lists them. The scripts name only what this binary bundles (file
/// names, versions, checksums of its own files): nothing from outside is ever spliced in.
public struct MigrationPlan: Sendable {
    public struct Step: Sendable {
        public let title: String
        public let sql: String
    }

    /// Migrations applied to the database by a newer release, unknown to this one.
    public struct Newer: Sendable, Equatable {
        public let version: Int
        public let name: String
        public let breaking: Bool
    }

    /// The schema's bookkeeping, made or completed before anything else (idempotent).
    public static let bootstrap = Step(title: "discern's bookkeeping tables", sql: Queries.Migrations.bootstrap + ";")

    /// The migrations and the function, view and grants files to apply, in order.
    public let steps: [Step]
    public let pendingMigrations: [Migration]
    public let pendingFiles: [String]
    public let newer: [Newer]
    public let appliedVersion: Int?

    public var isEmpty: Bool { steps.isEmpty }

    /// Reads the database's state. A database with no discern schema gets sql/schema.sql.
    public static func read(_ connection: Connection) throws -> MigrationPlan {
        let migrations = try Migrator.bundledMigrations()
        let present = try connection.run(Queries.Migrations.MigrationsPresent()).first?.present ?? false
        let applied = present ? try appliedMigrations(connection) : [:]
        if applied.isEmpty {
            let everything = Schema.repeatables
            return MigrationPlan(
                steps: [fresh(migrations), repeatables(everything, newest: Migrator.schemaVersion)],
                pendingMigrations: migrations, pendingFiles: everything.map(\.path), newer: [], appliedVersion: nil)
        }
        guard applied[Schema.baselineVersion] != nil else {
            throw QueueError(
                .migrationFailed,
                """
                this database's discern schema is at version \(applied.keys.max() ?? 0), older than the oldest this discern upgrades \
                (\(Schema.baselineVersion)): run `discern migrate` of a release from before 2026-11-25 (commit a624b03) first, then this one
                """)
        }
        let pending = migrations.filter { applied[$0.version] == nil }
        let known = Set(migrations.map(\.version) + Array(1...Schema.baselineVersion))
        let newer = applied.filter { !known.contains($0.key) }.map { Newer(version: $0.key, name: $0.value.name, breaking: $0.value.breaking) }
            .sorted { $0.version < $1.version }
        let files = try staleRepeatables(connection, newest: Migrator.schemaVersion)
        var steps = pending.map(step)
        if !files.isEmpty { steps.append(repeatables(files, newest: Migrator.schemaVersion)) }
        return MigrationPlan(
            steps: steps, pendingMigrations: pending, pendingFiles: files.map(\.path), newer: newer,
            appliedVersion: applied.keys.max())
    }

    /// The whole plan as one script for psql: under discern's migration lock, each step in its
    /// own transaction, none waiting long for a lock a live worker holds.
    public var script: String {
        let all = [Self.bootstrap] + steps
        return
            ([
                "-- discern migrate --sql: apply with psql -v ON_ERROR_STOP=1 as the schema's owner",
                Queries.Migrations.scriptLock + ";"
            ]
            + all.map { "-- \($0.title)\nBEGIN;\n\(Queries.Migrations.scriptLockTimeout);\n\($0.sql)\nCOMMIT;" }
            + [Queries.Migrations.scriptUnlock + ";"]).joined(separator: "\n\n") + "\n"
    }

    private static func appliedMigrations(_ connection: Connection) throws -> [Int: (name: String, breaking: Bool)] {
        let hasBreaking = try connection.run(Queries.Migrations.HasBreakingColumn()).first?.has ?? false
        // The same columns, typed twice: one statement for each shape of the bookkeeping table.
        let rows =
            hasBreaking
            ? try connection.run(Queries.Migrations.Applied()).map { ($0.version, ($0.name, $0.breaking)) }
            : try connection.run(Queries.Migrations.AppliedBeforeBreaking()).map { ($0.version, ($0.name, $0.breaking)) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// The functions, views and grants whose text differs from what was applied last, unless a
    /// binary with newer migrations applied them (an older binary never puts its own back).
    static func staleRepeatables(_ connection: Connection, newest: Int) throws -> [Repeatable] {
        let all = Schema.repeatables
        let statement = Queries.Migrations.StaleRepeatables(
            files: BinaryArray(all.map(\.path)), texts: BinaryArray(all.map(\.sql)), newest: newest)
        let stale = Set(try connection.run(statement).map(\.file))
        return all.filter { stale.contains($0.path) }
    }

    /// sql/schema.sql, recorded as every migration it stands for, so an older binary finds its own too.
    private static func fresh(_ migrations: [Migration]) -> Step {
        let versions =
            Array(1...Schema.baselineVersion).map { "(\($0), 'sql/schema.sql', false)" }
            + migrations.map { "(\($0.version), 'sql/schema.sql', \($0.breaking))" }
        return Step(title: "the fresh schema (sql/schema.sql)", sql: Schema.freshSchema + "\n" + recorded(versions))
    }

    private static func step(_ migration: Migration) -> Step {
        Step(
            title: "migration \(migration.version) (\(migration.name))\(migration.breaking ? ", breaking" : "")",
            sql: migration.sql + "\n" + recorded(["(\(migration.version), \(SQLText.literal(migration.name)), \(migration.breaking))"]))
    }

    /// The statement of a script recording migrations as applied, each `(version, name, breaking)`.
    private static func recorded(_ rows: [String]) -> String {
        Queries.fill(Queries.Migrations.recordMigrations, ["rows": rows.joined(separator: ",\n")]) + ";"
    }

    /// Functions first (their triggers with them, bodies unchecked, as pg_dump restores them),
    /// then views, each after the views it reads, then grants.
    private static func repeatables(_ files: [Repeatable], newest: Int) -> Step {
        let ordered =
            files.filter { $0.kind == .function } + RepeatableOrder.views(files.filter { $0.kind == .view })
            + files.filter { $0.kind == .grants }
        let record = ordered.map { "(\(SQLText.literal($0.path)), md5(\(SQLText.literal($0.sql))), \(newest))" }
        return Step(
            title: "the functions, views and grants of sql/",
            sql: ([Queries.Migrations.uncheckedFunctionBodies + ";"] + ordered.map(\.sql) + [
                Queries.fill(Queries.Migrations.recordRepeatables, ["rows": record.joined(separator: ",\n")]) + ";"
            ]).joined(separator: "\n"))
    }
}

/// Views in an order that creates each after the views it reads (its text names them).
enum RepeatableOrder {
    static func views(_ views: [Repeatable]) -> [Repeatable] {
        func name(_ view: Repeatable) -> String { String(view.path.split(separator: "/").last?.dropLast(".sql".count) ?? "") }
        let names = Set(views.map(name))
        var done: [Repeatable] = [], placed: Set<String> = []
        func place(_ view: Repeatable, _ visiting: Set<String>) {
            let own = name(view)
            guard !placed.contains(own), !visiting.contains(own) else { return }
            for other in views where names.contains(name(other)) && name(other) != own && mentions(code(view.sql), "discern.\(name(other))") {
                place(other, visiting.union([own]))
            }
            placed.insert(own)
            done.append(view)
        }
        views.forEach { place($0, []) }
        return done
    }

    /// The statements without their `--` comments (which name views they do not read).
    private static func code(_ sql: String) -> String {
        sql.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "--").map { String(line[..<$0.lowerBound]) } ?? String(line) }
            .joined(separator: "\n")
    }

    /// `text` names `qualified` as a whole name (discern.plan, not discern.plan_until).
    private static func mentions(_ text: String, _ qualified: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: qualified) {
            let next = rest[found.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "_") }) ?? true { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }
}

/// A bundled text as a SQL literal: dollar-quoted with a tag the text does not hold.
enum SQLText {
    static func literal(_ text: String) -> String {
        var tag = "discern"
        while text.contains("$\(tag)$") { tag += "_" }
        return "$\(tag)$\(text)$\(tag)$"
    }
}
