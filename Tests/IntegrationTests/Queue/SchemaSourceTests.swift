import ServiceClients
import Foundation
import JobQueue
import Postgres
import SQLSchema
import TestFixtures
import Testing

/// sql/ is the schema's source (docs/sql.md): a database made by the last release upgrades to
/// exactly what a fresh install is, sql/schema.sql is what both hold, and each function and
/// view is written in one file.
@Suite("Schema source", .integrationTimeLimit)
struct SchemaSourceTests {
    static let sql = ChaosJobs.repository.appendingPathComponent("sql")

    @Test(
        "the services, the jobs table's backend check and the rate_limits rows agree: a new service's folder and line fail here until its migration is written"
    )
    func servicesAgreeWithSchema() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo, name: "test-services")
            let check = try #require(
                try await database.rows(
                    "SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'jobs_backend_check'", as: String.self
                ).first)
            let allowed = check.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            #expect(
                Set(allowed) == Set(Services.names), "jobs_backend_check allows \(allowed.sorted()); Services.all names \(Services.names.sorted())")
            let seeded = try await database.rows("SELECT key FROM discern.rate_limits", as: String.self)
            let keys = Set(Services.all.flatMap(\.rateLimitKeys))
            #expect(Set(seeded).isSubset(of: keys), "rate_limits rows no service takes a slot from: \(Set(seeded).subtracting(keys).sorted())")
        }
    }

    @Test(
        "a database made by the last release (migrations 1-25, with jobs in it) upgrades to what a fresh install is: the same schema, privileges and sql/schema.sql, its rows kept"
    )
    func upgradeEqualsFresh() async throws {
        try await TestDatabase.with { fresh in
            // The fresh install ran first: it made the roles the release's dump grants to.
            try await TestDatabase.with(migrated: false) { upgraded in
                let fixture = ChaosJobs.repository.appendingPathComponent("Tests/IntegrationTests/Fixtures/release-25.dump").path
                _ = try await Subprocess.run("/usr/bin/pg_restore", ["--no-owner", "--exit-on-error", "--dbname", upgraded, fixture])
                let applied = try await Database(conninfo: upgraded).withConnection { try Migrator.migrate($0) }
                #expect(applied.versions == (try Schema.migrations()).map(\.version), "only the migrations after the release")

                let (upgradedSchema, freshSchema) = (try await Self.dump(upgraded), try await Self.dump(fresh))
                if upgradedSchema != freshSchema {
                    let diff = try await Self.diff(upgradedSchema, freshSchema)
                    Issue.record("the upgraded schema differs from a fresh one:\n\(diff.prefix(4000))")
                }
                #expect(try await Self.privileges(upgraded) == (try await Self.privileges(fresh)))

                let generated = try await Subprocess.run(
                    "/bin/bash", [ChaosJobs.repository.appendingPathComponent("scripts/schema.sh").path, upgraded])
                let committed = try String(contentsOf: Self.sql.appendingPathComponent("schema.sql"), encoding: .utf8)
                if generated != committed {
                    let written = ChaosJobs.repository.appendingPathComponent(".build/schema.sql")
                    try generated.write(to: written, atomically: true, encoding: .utf8)
                    Issue.record(
                        "sql/schema.sql is not what a migrated database holds: \(written.path) is; if the change is meant, copy it over:\n\(try await Self.diff(committed, generated).prefix(3000))"
                    )
                }

                let kept = try await Database(conninfo: upgraded).rows(
                    "SELECT state, count(*) FROM discern.jobs GROUP BY state ORDER BY state", as: String.self, Int.self
                ).map { state, count in "\(state) \(count)" }
                #expect(kept == ["available 2", "cancelled 1", "dead 1"], "\(kept)")
                let workers = try await Database(conninfo: upgraded).rows("SELECT jobs_finished FROM discern.workers WHERE id = 'w-25'", as: Int.self)
                #expect(workers.first == 0, "a new column gets its default on old rows")
            }
        }
    }

    @Test(
        "each function and view of the live schema is written in exactly one file under sql/ (functions/NAME.sql, views/NAME.sql), with the triggers that call it; migrations and schema.sql define none"
    )
    func oneFilePerDefinition() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let functions = try await database.rows(
                "SELECT proname AS name FROM pg_proc WHERE pronamespace = 'discern'::regnamespace ORDER BY 1", as: String.self)
            let views = try await database.rows("SELECT viewname AS name FROM pg_views WHERE schemaname = 'discern' ORDER BY 1", as: String.self)
            let triggers = try await database.rows(
                """
                SELECT t.tgname AS name, p.proname AS function FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND c.relnamespace = 'discern'::regnamespace
                """, as: String.self, String.self
            )
            let files = Schema.files
            func defining(_ kind: String, _ name: String) -> [String] {
                files.filter {
                    $0.value.range(of: "CREATE (OR REPLACE )?\(kind) discern\\.\(name)\\b", options: [.regularExpression, .caseInsensitive]) != nil
                }.keys.sorted()
            }
            for name in functions { #expect(defining("FUNCTION", name) == ["functions/\(name).sql"], "\(name)") }
            for name in views { #expect(defining("VIEW", name) == ["views/\(name).sql"], "\(name)") }
            for (name, function) in triggers {
                let where_ = files.filter { $0.value.range(of: "CREATE TRIGGER \(name)\\b", options: .regularExpression) != nil }.keys.sorted()
                #expect(where_ == ["functions/\(function).sql"], "trigger \(name)")
            }
            // And nothing under sql/ defines what the database does not have.
            let defined = Set(files.keys.filter { $0.hasPrefix("functions/") || $0.hasPrefix("views/") })
            #expect(defined == Set(functions.map { "functions/\($0).sql" } + views.map { "views/\($0).sql" }))
            #expect(functions.count > 30 && views.count > 15)
        }
    }

    @Test("the rate-token function replaced by rate leases is gone, from the database and from the repository")
    func deadCodeGone() async throws {
        let name = "take_rate" + "_token"
        let found = try await Subprocess.runWithStatus("/usr/bin/git", ["-C", ChaosJobs.repository.path, "grep", "-l", "-w", name, "--", "."])
        #expect(found.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(found.output)")
        try await TestDatabase.with { conninfo in
            let count = try await Database(conninfo: conninfo).value("SELECT count(*) FROM pg_proc WHERE proname = \(name)", as: Int.self)
            #expect(count == 0)
        }
    }

    /// The schema as pg_dump writes it, privileges aside (compared as sets: their order in an
    /// ACL depends on the order they were granted in).
    static func dump(_ conninfo: String) async throws -> String {
        let text = try await Subprocess.run("/usr/bin/pg_dump", ["--schema-only", "--no-owner", "--no-privileges", "--schema=discern", conninfo])
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("-- Dumped ") && !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }
            .joined(separator: "\n")
    }

    static func privileges(_ conninfo: String) async throws -> [String] {
        try await Database(conninfo: conninfo).rows(
            """
            SELECT kind || ' ' || object || ' ' || coalesce(nullif(a.grantee, 0)::regrole::text, 'PUBLIC') || ' ' || a.privilege_type AS line
            FROM (SELECT 'relation' AS kind, c.relname::text AS object, c.relacl AS acl FROM pg_class c WHERE c.relnamespace = 'discern'::regnamespace
                  UNION ALL SELECT 'column', c.relname || '.' || a.attname, a.attacl FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                            WHERE c.relnamespace = 'discern'::regnamespace AND a.attacl IS NOT NULL
                  UNION ALL SELECT 'function', p.proname::text, p.proacl FROM pg_proc p WHERE p.pronamespace = 'discern'::regnamespace
                  UNION ALL SELECT 'schema', n.nspname::text, n.nspacl FROM pg_namespace n WHERE n.nspname = 'discern'
                  UNION ALL SELECT 'default ' || d.defaclobjtype::text, d.defaclrole::regrole::text, d.defaclacl FROM pg_default_acl d
                            WHERE d.defaclnamespace = 'discern'::regnamespace) o
            CROSS JOIN LATERAL aclexplode(o.acl) a
            ORDER BY 1
            """, as: String.self
        )
    }

    static func diff(_ a: String, _ b: String) async throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-diff-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try a.write(to: folder.appendingPathComponent("a"), atomically: true, encoding: .utf8)
        try b.write(to: folder.appendingPathComponent("b"), atomically: true, encoding: .utf8)
        return try await Subprocess.runWithStatus(
            "/usr/bin/diff", ["-u", folder.appendingPathComponent("a").path, folder.appendingPathComponent("b").path]
        ).output
    }
}
