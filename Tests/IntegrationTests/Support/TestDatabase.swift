import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

/// A fresh, migrated database per test, dropped afterwards even when the test fails.
/// The cluster comes from scripts/test.sh (DISCERN_TEST_DATABASE_URL). A migrated database is a
/// copy of one migrated once per test process (`CREATE DATABASE ... TEMPLATE`): hundreds of tests
/// starting at once each ran every migration and sql/ file, and on a loaded machine the
/// cluster stopped answering new connections in time (`connect_timeout`).
enum TestDatabase {
    static var serverURL: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["DISCERN_TEST_DATABASE_URL"], !url.isEmpty else {
                throw TestSetupError("DISCERN_TEST_DATABASE_URL is not set: run the tests with scripts/test.sh, which starts a private PostgreSQL")
            }
            return url
        }
    }

    @discardableResult
    static func with<T: Sendable>(migrated: Bool = true, _ body: (String) async throws -> T) async throws -> T {
        let server = try serverURL
        let name = "discern_test_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = Database(conninfo: server, name: "test-admin")
        // The names are generated here, never from input; CREATE DATABASE takes no parameters.
        let template = migrated ? try await Self.template.name(server: server) : nil
        try await Self.administer(admin) {
            try $0.execute("CREATE DATABASE \(unescaped: name)\(unescaped: template.map { " TEMPLATE \($0)" } ?? "")")
        }
        let conninfo = replacingDatabase(in: server, with: name)
        do {
            let value = try await body(conninfo)
            try await drop(name, admin)
            return value
        } catch {
            try? await drop(name, admin)
            throw error
        }
    }

    private static let template = Template()

    /// The migrated database the others copy, made once: the tests that ask meanwhile wait for
    /// the same making (an actor alone would let each of them in at its first `await`).
    private actor Template {
        private var making: Task<String, any Error>?

        /// A making that failed is forgotten: the next test tries again, rather than every later
        /// one failing on one slow moment of the cluster.
        func name(server: String) async throws -> String {
            let making = self.making ?? Task { try await Self.make(server: server) }
            self.making = making
            do {
                return try await making.value
            } catch {
                if self.making == making { self.making = nil }
                throw error
            }
        }

        private static func make(server: String) async throws -> String {
            let name = "discern_template_\(UUID().uuidString.prefix(8).lowercased())"
            let admin = Database(conninfo: server, name: "test-admin")
            try await TestDatabase.administer(admin) { try $0.execute("CREATE DATABASE \(unescaped: name)") }
            let migrating = Database(conninfo: TestDatabase.replacingDatabase(in: server, with: name), name: "test-migrate")
            try await TestDatabase.administer(migrating) { _ = try Migrator.migrate($0) }
            // A database being copied must have no session: the migration's ends now, not when its handle goes.
            try await TestDatabase.administer(admin) {
                try $0.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(name) AND pid <> pg_backend_pid()")
            }
            return name
        }
    }

    private static func drop(_ name: String, _ admin: Database) async throws {
        try await administer(admin) { try $0.execute("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)") }
    }

    /// A statement of the harness's own, tried again while the cluster is slow to take a
    /// connection (hundreds of tests start at once on two busy cores), or while a session on
    /// the template is still ending (55006): the tests are about discern, not the harness.
    static func administer(_ admin: Database, _ statement: @escaping @Sendable (Connection) throws -> Void) async throws {
        var pause = 0.5
        for attempt in 1... {
            do {
                return try await admin.withConnection { try statement($0) }
            } catch let error as PostgresError where (error.code == .connectionFailed || error.sqlState == "55006") && attempt < 6 {
                try await Task.sleep(for: .seconds(pause))
                pause *= 2
            }
        }
    }

    /// `postgresql://user@host:port/db?x` with the database name swapped.
    static func replacingDatabase(in url: String, with name: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + name
        return components.string ?? url
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
