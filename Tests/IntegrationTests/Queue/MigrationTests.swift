import Foundation
import JobQueue
import Postgres
import SQLSchema
import TestFixtures
import Testing

@Suite("Migrations", .integrationTimeLimit)
struct MigrationTests {
    static var everyVersion: [Int] { Array(1...Schema.baselineVersion) + ((try? Schema.migrations()) ?? []).map(\.version) }

    @Test("a fresh database gets sql/schema.sql, the migrations after it and every function, view and grants file; a second migrate changes nothing")
    func secondMigrateIsANoOp() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let database = Database(conninfo: conninfo)
            let first = try await database.withConnection { try Migrator.migrate($0) }
            #expect(first.versions == Self.everyVersion)
            #expect(first.files.sorted() == Schema.repeatables.map(\.path).sorted())
            let schemaBefore = try await Self.schemaFingerprint(database)

            let second = try await database.withConnection { try Migrator.migrate($0) }
            #expect(second.isEmpty)
            #expect(try await Self.schemaFingerprint(database) == schemaBefore)
            let recorded = try await database.value("SELECT count(*) FROM discern.schema_migrations", as: Int.self)
            #expect(recorded == Self.everyVersion.count)
        }
    }

    @Test("concurrent migrations apply each version and each file once")
    func concurrentMigrations() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let applied = try await withThrowingTaskGroup(of: Migrator.Applied.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await Database(conninfo: conninfo).withConnection { try Migrator.migrate($0) } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(applied.flatMap(\.versions).sorted() == Self.everyVersion)
            #expect(applied.flatMap(\.files).sorted() == Schema.repeatables.map(\.path).sorted())
        }
    }

    @Test("a function file that changed is applied again, alone; one a newer discern applied is left as it is")
    func changedFileAppliedAgain() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let newest = Self.everyVersion.last ?? 0
            try await database.execute("UPDATE discern.schema_repeatables SET checksum = 'edited' WHERE file = 'functions/claim_jobs.sql'")
            await #expect(throws: QueueError.self) { try await database.withConnection { try Migrator.requireCurrent($0) } }
            let again = try await database.withConnection { try Migrator.migrate($0) }
            #expect(again == Migrator.Applied(versions: [], files: ["functions/claim_jobs.sql"]))

            // Left by a discern that carries a later migration: this one does not put its own back.
            try await database.execute(
                "UPDATE discern.schema_repeatables SET checksum = 'newer', schema_version = \(newest + 1) WHERE file = 'views/queue_depth.sql'")
            try await database.withConnection { try Migrator.requireCurrent($0) }
            #expect(try await database.withConnection { try Migrator.migrate($0) }.isEmpty)
        }
    }

    @Test("a database older than the baseline is refused with what to do")
    func olderThanBaselineRefused() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.execute("CREATE SCHEMA discern")
            try await database.execute(
                "CREATE TABLE discern.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            try await database.execute("INSERT INTO discern.schema_migrations (version, name) SELECT v, 'old' FROM generate_series(1, 20) v")
            do {
                try await database.withConnection { try Migrator.migrate($0) }
                Issue.record("an older schema was migrated")
            } catch let error as QueueError {
                #expect(
                    error.message.contains("version 20, older than the oldest this discern upgrades (25)") && error.message.contains("a624b03"),
                    "\(error.message)")
            }
        }
    }

    @Test("every .sql file of the schema under sql/ is compiled into the binary, byte for byte; every file of sql/queries/ as statements")
    func everyFileBundled() throws {
        let root = ChaosJobs.repository.appendingPathComponent("sql")
        var onDisk: [String: String] = [:]
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)! where url.pathExtension == "sql" {
            onDisk[String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))] = try String(
                contentsOf: url, encoding: .utf8)
        }
        let queries = onDisk.keys.filter { $0.hasPrefix("queries/") }
        #expect(Set(queries) == Set(Queries.all.map(\.file)), "a queries file without a statement, or one not compiled in")
        for path in queries { onDisk[path] = nil }
        #expect(onDisk.keys.sorted() == Schema.files.keys.sorted())
        for (path, text) in onDisk { #expect(Schema.files[path] == text, "\(path)") }
    }

    @Test("the binary alone migrates: no resource bundle beside it")
    func binaryAloneMigrates() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-alone-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let copy = folder.appendingPathComponent("discern")
            // cp in a process of its own: a write descriptor held here could leak into a process
            // another test spawns meanwhile, and exec would then fail with ETXTBSY.
            _ = try await Subprocess.run("/bin/cp", [try WorkerProcess.binary.path, copy.path])
            let output = try await Subprocess.run(copy.path, ["migrate", "--database-url", conninfo])
            #expect(output.contains("applied migrations: 1, 2, 3") && output.contains("function, view and grants file(s) of sql/"), "\(output)")
        }
    }

    static func schemaFingerprint(_ database: Database) async throws -> [String] {
        try await database.rows(
            """
            SELECT c.relname || ':' || c.relkind::text AS object FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'discern'
            UNION ALL
            SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'discern'
            ORDER BY 1
            """, as: String.self
        )
    }
}
