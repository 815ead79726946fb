import Foundation
import Postgres
import Testing

/// The console against an attacker one step inside: a web page the operator visits (DNS rebinding),
/// a proxy on the same host, any local process, a stolen cookie.
@Suite("Console access", .integrationTimeLimit)
struct ConsoleAccessTests {
    @Test("only its own host names are served; any proxy header makes a request remote; photos are cached nowhere")
    func hostsAndProxies() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                _ = try await ConsoleTests.seed(conninfo, folder)
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own name.
                for path in ["/", "/login", "/api/overview", "/static/console.css"] {
                    let rebound = await RawHTTP.get(port: port, path: path, headers: ["Host": "evil.example"])
                    #expect(rebound.status == 421 && !rebound.body.contains("csrf"), "\(path): \(rebound.status)")
                }
                #expect(
                    await RawHTTP.post(port: port, path: "/actions/retry", body: "job=1", headers: ["Host": "evil.example:\(port)"]).status == 421)
                for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST"] {
                    #expect(await RawHTTP.get(port: port, path: "/", headers: ["Host": host]).status == 200, "\(host)")
                }
                // A proxy on this machine relays anyone: whatever header says so, it is not local.
                for header in ["Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-IP"] {
                    #expect(await RawHTTP.get(port: port, path: "/api/overview", headers: [header: "203.0.113.9"]).status == 401, "\(header)")
                }
                // A probe asks by the pod's name, from elsewhere, without a token: it learns only "ok".
                let probe = await RawHTTP.get(port: port, path: "/healthz", from: "127.0.0.2", headers: ["Host": "discern-console-7f9c.pod:\(port)"])
                #expect(probe.status == 200 && probe.body == "ok\n", "\(probe.status) \(probe.body)")
                let head = await RawHTTP.head(port: port, path: "/")
                #expect(head.status == 200 && head.body.isEmpty, "HEAD answers like GET without a body: \(head.status) \(head.body.prefix(100))")
                let result = try #require(try await Database(conninfo: conninfo).value("SELECT min(id) FROM discern.results", as: Int?.self))
                let photo = await RawHTTP.get(port: port, path: "/thumbnails/\(result)")
                #expect(photo.status == 200 && photo.headers["cache-control"] == "private, no-store", "\(photo.headers)")
                #expect(photo.headers["cross-origin-resource-policy"] == "same-origin", "\(photo.headers)")
            }
        }
    }

    @Test("sessions: signed, expiring, Secure under https, never the token itself; the proxy's user header counts only with the token")
    func sessionsAndProxyUsers() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let token = "t0ken-\(UUID().uuidString)"
                let (console, port) = try await ConsoleTests.console(
                    conninfo, folder, ["--public-url", "https://discern.example.org/", "--trusted-user-header", "X-Forwarded-User"],
                    environment: ["DISCERN_CONSOLE_TOKEN": token])
                defer { console.kill() }
                let publicHost = ["Host": "discern.example.org"]
                #expect(
                    await RawHTTP.get(port: port, path: "/api/overview", headers: publicHost.merging(["Authorization": "Bearer \(token)"]) { $1 })
                        .status == 200)
                #expect(
                    await RawHTTP.get(port: port, path: "/api/overview", headers: ["Host": "other.example.org", "Authorization": "Bearer \(token)"])
                        .status == 421)

                let login = await RawHTTP.post(port: port, path: "/login", body: "token=\(token)", headers: publicHost)
                let cookie = try #require(login.headers["set-cookie"], "\(login.status) \(login.headers)")
                for attribute in ["HttpOnly", "SameSite=Strict", "Max-Age=43200", "Secure"] {
                    #expect(cookie.contains(attribute), "\(cookie)")
                }
                #expect(!cookie.contains(token), "the cookie carries a session, not the token")
                let session = String(cookie.split(separator: ";")[0])
                #expect(await RawHTTP.get(port: port, path: "/api/overview", headers: publicHost.merging(["Cookie": session]) { $1 }).status == 200)
                let parts = session.split(separator: "=")[1].split(separator: ".")
                #expect(parts.count == 3 && parts[1] == "admin", "EXPIRY.ROLE.SIGNATURE: \(session)")
                let forged = "discern_console=\(Int(parts[0])! + 86400).\(parts[1]).\(parts[2])"
                #expect(
                    await RawHTTP.get(port: port, path: "/api/overview", headers: publicHost.merging(["Cookie": forged]) { $1 }).status == 401,
                    "a session's expiry cannot be moved")

                // Any process on this machine can send the header; without the token it names nobody.
                #expect(await RawHTTP.get(port: port, path: "/api/overview", headers: ["X-Forwarded-User": "admin"]).status == 401)
                #expect(
                    await RawHTTP.get(
                        port: port, path: "/api/overview",
                        headers: ["X-Forwarded-User": "alice", "Authorization": "Bearer \(token)"]
                    ).status == 200)

                let refused = try await Subprocess.runWithStatus(
                    try WorkerProcess.binary.path,
                    [
                        "console", "--database-url", conninfo, "--path-root", folder.path, "--trusted-user-header", "X-Forwarded-User"
                    ])
                #expect(refused.status == 64 && refused.output.contains("DISCERN_CONSOLE_TOKEN"), "\(refused.output)")
            }
        }
    }

    @Test("a page whose query cannot finish is cut off by the console's statement timeout, not left running")
    func statementTimeout() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (console, port) = try await ConsoleTests.console(conninfo, folder)
                defer { console.kill() }
                let locker = Database(conninfo: conninfo, name: "test-locker")
                try await locker.withConnection { connection in
                    try connection.execute("BEGIN")
                    try connection.execute("LOCK TABLE discern.jobs IN ACCESS EXCLUSIVE MODE")
                }
                let page = await RawHTTP.get(port: port, path: "/api/overview")
                try await locker.withConnection { try $0.execute("ROLLBACK") }
                #expect(page.status >= 500, "\(page.status) \(page.body.prefix(300))")
                let waiting = try await Database(conninfo: conninfo, name: "test-report").value(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND application_name LIKE 'discern-console-%' AND state = 'active'
                    """, as: Int.self
                )
                #expect(waiting == 0, "a console query still runs")
            }
        }
    }
}
