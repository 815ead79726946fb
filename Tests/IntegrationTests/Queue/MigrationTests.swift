import Foundation
import JobQueue
import Postgres
import SQLSchema
import TestFixtures
import Testing

@Suite("Migrations")
struct MigrationTests {
    @Test("a second migrate changes nothing")
    func secondMigrateIsANoOp() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let database = Database(conninfo: conninfo)
            let first = try await database.withConnection { try Migrator.migrate($0) }
            let shipped = try Schema.migrations().map(\.version)
            #expect(first == shipped)
            #expect(shipped.starts(with: [1, 2, 3]))
            let schemaBefore = try await Self.schemaFingerprint(database)

            let second = try await database.withConnection { try Migrator.migrate($0) }
            #expect(second.isEmpty)
            #expect(try await Self.schemaFingerprint(database) == schemaBefore)
            let recorded = try await database.rows("SELECT count(*) AS n FROM discern.schema_migrations")
            #expect(try recorded.first?.int("n") == shipped.count)
        }
    }

    @Test("concurrent migrations apply each version once")
    func concurrentMigrations() async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<3 {
                    group.addTask { try await Database(conninfo: conninfo).withConnection { try Migrator.migrate($0) } }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(applied == (try Schema.migrations().map(\.version)))
        }
    }

    @Test("every file in sql/migrations is compiled into the binary, byte for byte")
    func everyMigrationEmbedded() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("sql/migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        let embedded = try Schema.migrations()
        #expect(embedded.map { String(format: "%04d_%@.sql", $0.version, $0.name) } == files)
        for (file, migration) in zip(files, embedded) {
            #expect(migration.sql == (try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)), "\(file)")
        }
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
            #expect(output.contains("applied migrations: 1, 2, 3, 4, 5, 6, 7, 8"), "\(output)")
        }
    }

    private static func schemaFingerprint(_ database: Database) async throws -> [String] {
        try await database.rows("""
            SELECT c.relname || ':' || c.relkind::text AS object FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'discern'
            UNION ALL
            SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'discern'
            ORDER BY 1
            """).map { try $0.string("object") }
    }
}
