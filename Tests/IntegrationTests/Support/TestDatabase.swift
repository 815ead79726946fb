import Foundation
import JobQueue
import Postgres
import TestFixtures
import Testing

/// A fresh, migrated database per test, dropped afterwards even when the test fails.
/// The cluster comes from scripts/test.sh (DISCERN_TEST_DATABASE_URL).
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
        // The name is generated here, never from input; CREATE DATABASE takes no parameters.
        try await admin.withConnection { try $0.query("CREATE DATABASE \(name)") }
        let conninfo = replacingDatabase(in: server, with: name)
        do {
            if migrated {
                try await Database(conninfo: conninfo, name: "test-migrate").withConnection { try Migrator.migrate($0) }
            }
            let value = try await body(conninfo)
            try await drop(name, admin)
            return value
        } catch {
            try? await drop(name, admin)
            throw error
        }
    }

    private static func drop(_ name: String, _ admin: Database) async throws {
        try await admin.withConnection { try $0.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
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
