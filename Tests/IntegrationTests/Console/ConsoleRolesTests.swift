import Foundation
import Postgres
import Testing

/// Who may act in the console: viewer, operator and admin, by their own tokens and behind a reverse
/// proxy whose users are mapped to roles.
@Suite("Console roles", .integrationTimeLimit)
struct ConsoleRolesTests {
    struct Tokens {
        let admin = "admin-\(UUID().uuidString)", operatorToken = "operator-\(UUID().uuidString)", viewer = "viewer-\(UUID().uuidString)"
        var environment: [String: String] {
            ["DISCERN_CONSOLE_TOKEN": admin, "DISCERN_CONSOLE_OPERATOR_TOKEN": operatorToken, "DISCERN_CONSOLE_VIEWER_TOKEN": viewer]
        }
    }

    static func bearer(_ token: String, user: String? = nil) -> [String: String] {
        ["Authorization": "Bearer \(token)"].merging(user.map { ["X-Forwarded-User": $0] } ?? [:]) { $1 }
    }

    /// The form token the pages carry for whoever `headers` sign in as; a viewer's carry none.
    static func csrf(_ port: Int, _ headers: [String: String]) async -> String? {
        let page = await RawHTTP.get(port: port, path: "/jobs", headers: headers)
        return page.body.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/).map { String($0.1) }
    }

    static func csrf(_ port: Int, _ token: String) async throws -> String {
        try #require(await csrf(port, bearer(token)), "the admin's pages carry a form token")
    }

    @Test(
        "by forged requests: each role does exactly what it allows, by token and behind a proxy; a refusal is 403 and logged; the operator log names who acted"
    )
    func forgedRequests() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, _) = try await ConsoleTests.seed(conninfo, folder)
                let tokens = Tokens()
                let (console, port) = try await ConsoleTests.console(
                    conninfo, folder, ["--trusted-user-header", "X-Forwarded-User", "--roles", "Alice@Example.org=admin, bob=operator"],
                    environment: tokens.environment)
                defer { console.kill() }
                let database = Database(conninfo: conninfo)
                let csrf = try await Self.csrf(port, tokens.admin)
                let succeeded = try #require(try await database.value("SELECT min(job_id) FROM discern.results", as: Int?.self))

                // Raw answers: an operator reads them, a viewer does not, on the page or its JSON twin.
                for (headers, visible) in [
                    (Self.bearer(tokens.operatorToken), true), (Self.bearer(tokens.viewer), false),
                    (Self.bearer(tokens.admin, user: "carol"), false)
                ] {
                    let api = await RawHTTP.get(port: port, path: "/api/jobs/\(succeeded)", headers: headers)
                    #expect(api.status == 200 && api.body.contains("\"raw_answer_visible\":\(visible)"), "\(headers): \(api.body.suffix(200))")
                    let page = await RawHTTP.get(port: port, path: "/jobs/\(succeeded)", headers: headers)
                    #expect(page.body.contains("raw answers are for operators") == !visible, "\(headers)")
                }

                let retry = ("/actions/retry", "job=\(fixable)")
                let pause = ("/actions/pause", "service=discerner")
                let resume = ("/actions/resume", "service=discerner")
                let pace = ("/actions/rate-limit", "key=discerner%3Aanalyze&per_minute=42")
                let cap = ("/actions/spend-cap", "service=discerner&cap_calls=5000&period=day")
                let noCap = ("/actions/spend-cap", "service=discerner&cap_calls=&period=month")
                let tries: [(who: String, headers: [String: String], action: (String, String), status: Int)] = [
                    ("viewer token", Self.bearer(tokens.viewer), retry, 403),
                    ("viewer token", Self.bearer(tokens.viewer), pause, 403),
                    ("viewer token", Self.bearer(tokens.viewer), pace, 403),
                    ("carol (no role: viewer)", Self.bearer(tokens.admin, user: "carol"), retry, 403),
                    ("bob behind the viewer token", Self.bearer(tokens.viewer, user: "bob"), retry, 403),
                    ("operator token", Self.bearer(tokens.operatorToken), pace, 403),
                    ("operator token", Self.bearer(tokens.operatorToken), cap, 403),
                    // The router ignores empty path parts; so must the check.
                    ("operator token", Self.bearer(tokens.operatorToken), ("//actions/rate-limit", pace.1), 403),
                    ("viewer token", Self.bearer(tokens.viewer), ("/actions//retry/", retry.1), 403),
                    ("operator token", Self.bearer(tokens.operatorToken), retry, 303),
                    // Only the proxy's token names a user: the operator token cannot sign as Alice.
                    ("operator token naming alice", Self.bearer(tokens.operatorToken, user: "alice@example.org"), pause, 303),
                    ("bob", Self.bearer(tokens.admin, user: "bob"), cap, 403),
                    ("bob", Self.bearer(tokens.admin, user: "bob"), resume, 303),
                    ("bob", Self.bearer(tokens.admin, user: "bob"), pause, 303),
                    ("alice", Self.bearer(tokens.admin, user: "alice@example.org"), pace, 303),
                    ("alice", Self.bearer(tokens.admin, user: "alice@example.org"), cap, 303),
                    // A cap for a misspelt service would cap nothing; one without a period is no cap.
                    (
                        "alice", Self.bearer(tokens.admin, user: "alice@example.org"),
                        ("/actions/spend-cap", "service=discernr&cap_calls=5&period=day"), 400
                    ),
                    ("alice", Self.bearer(tokens.admin, user: "alice@example.org"), ("/actions/spend-cap", "service=discerner&cap_calls=5"), 400),
                    ("admin token", Self.bearer(tokens.admin), noCap, 303)
                ]
                for attempt in tries {
                    // Each with the form token its own pages carry; a viewer's carry none, so it
                    // sends the admin's: only its role can refuse it.
                    let own = await Self.csrf(port, attempt.headers) ?? csrf
                    let answer = await RawHTTP.post(
                        port: port, path: attempt.action.0, body: "csrf=\(own)&" + attempt.action.1, headers: attempt.headers)
                    #expect(answer.status == attempt.status, "\(attempt.who) \(attempt.action.0): \(answer.status) \(answer.body.prefix(200))")
                    if attempt.status == 403 { #expect(answer.body.contains("needs the"), "\(answer.body)") }
                }

                // A form token is good only for whom it was made: an operator's, copied into a page an
                // admin opens, does not act for the admin, nor the admin's for the operator.
                let operatorCSRF = try #require(await Self.csrf(port, Self.bearer(tokens.operatorToken)))
                #expect(operatorCSRF != csrf)
                for (headers, token) in [
                    (Self.bearer(tokens.admin, user: "alice@example.org"), operatorCSRF),
                    (Self.bearer(tokens.admin), operatorCSRF), (Self.bearer(tokens.operatorToken), csrf)
                ] {
                    let answer = await RawHTTP.post(port: port, path: "/actions/pause", body: "csrf=\(token)&backend=ooto", headers: headers)
                    #expect(answer.status == 403 && answer.body.contains("stale"), "\(headers): \(answer.status) \(answer.body.prefix(200))")
                }

                // A viewer's session cannot be made an admin's: the role is signed with the expiry.
                let login = await RawHTTP.post(port: port, path: "/login", body: "token=\(tokens.viewer)")
                let session = String(try #require(login.headers["set-cookie"]).split(separator: ";")[0])
                #expect(session.contains(".viewer."), "\(session)")
                #expect(await RawHTTP.get(port: port, path: "/api/overview", headers: ["Cookie": session]).status == 200)
                let raised = session.replacingOccurrences(of: ".viewer.", with: ".admin.")
                #expect(
                    await RawHTTP.post(port: port, path: "/actions/retry", body: "csrf=\(csrf)&job=\(fixable)", headers: ["Cookie": raised]).status
                        == 401)

                // What was done, and by whom: the operator log names each actor.
                let log = try await database.rows("SELECT actor, action FROM discern.operator_actions ORDER BY id", as: String.self, String.self)
                let entries = log.map { actor, action in "\(actor) \(action)" }
                #expect(
                    entries == [
                        "operator token retry", "operator token pause", "bob resume", "bob pause", "alice@example.org rate_limit",
                        "alice@example.org spend_cap", "token spend_cap"
                    ], "\(entries)")
                #expect(
                    try await database.value("SELECT per_minute FROM discern.rate_limits WHERE key = 'discerner:analyze'", as: Double?.self) == 42)
                let (capCalls, capPeriod) = try #require(
                    try await database.rows(
                        "SELECT cap_calls, cap_period FROM discern.service_budgets WHERE backend = 'discerner'", as: Int?.self, String.self
                    ).first)
                #expect(capCalls == nil && capPeriod == "month")
                #expect(try await database.value("SELECT state FROM discern.jobs WHERE id = \(fixable)", as: String.self) == "available")

                // Every refusal is in the console's log, with who tried.
                #expect(
                    await console.logged { $0.components(separatedBy: "console action refused").count - 1 == 10 },
                    "\(console.output.suffix(2000))")
                #expect(
                    console.output.contains("\"user\":\"carol\"") && console.output.contains("\"user\":\"viewer token\""),
                    "\(console.output.suffix(2000))")

                // A bad roles setting stops the console with a reason.
                let refused = try await Subprocess.runWithStatus(
                    try WorkerProcess.binary.path,
                    [
                        "console", "--database-url", conninfo, "--path-root", folder.path, "--trusted-user-header", "X-Forwarded-User", "--roles",
                        "bob=root"
                    ],
                    environment: ["DISCERN_CONSOLE_TOKEN": tokens.admin])
                #expect(refused.status == 64 && refused.output.contains("bob=root"), "\(refused.output)")
            }
        }
    }

    @Test(
        "in Chromium: a viewer sees no action and its forged POST from the page is refused; an operator retries but sets no limits; an admin sets a pace"
    )
    func inChromium() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let (fixable, _) = try await ConsoleTests.seed(conninfo, folder)
                let tokens = Tokens()
                let (console, port) = try await ConsoleTests.console(conninfo, folder, environment: tokens.environment)
                defer { console.kill() }
                let base = "http://127.0.0.1:\(port)"
                let forms = "String(document.querySelectorAll('form[method=post]').length)"
                func signIn(_ token: String) -> [BrowserSession.Step] {
                    [.go(base + "/login"), .fill("input[name=token]", token), .click("button[type=submit]")]
                }
                // A viewer's pages carry no form token; the forged POST has a real one, taken from
                // an admin's page, so only the role can refuse it.
                let csrf = try await Self.csrf(port, tokens.admin)
                let forged =
                    "fetch('/actions/retry', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, "
                    + "body: 'csrf=\(csrf)&job=\(fixable)'}).then(r => String(r.status))"
                let viewer = try await BrowserSession.run(
                    signIn(tokens.viewer) + [
                        .go(base + "/jobs/\(fixable)"), .eval(forms), .text,
                        .go(base + "/jobs?state=dead"), .eval(forms),
                        .go(base + "/plan"), .eval(forms),
                        .go(base + "/jobs/\(fixable)"), .eval(forged)
                    ])
                let seen = viewer.steps
                #expect(seen[2].found == true, "signed in: \(seen.map { $0.url ?? "" })")
                #expect(
                    seen[4].value == "0" && seen[7].value == "0" && seen[9].value == "0",
                    "a viewer's pages carry no action: \(seen.compactMap(\.value))")
                #expect(seen[5].text?.contains("read-only") == true, "\(seen[5].text?.prefix(300) ?? "")")
                #expect(seen[11].value == "403", "a viewer's forged POST: \(seen[11].value ?? "")")

                // The operator's retry leaves a job waiting: the Plan page has a service to show.
                let operatorSession = try await BrowserSession.run(
                    signIn(tokens.operatorToken) + [
                        .go(base + "/jobs/\(fixable)"), .click("form[action=\"/actions/retry\"] button"), .text,
                        .go(base + "/plan"), .eval("String(document.querySelectorAll('form[action=\"/actions/rate-limit\"]').length)"), .text
                    ])
                #expect(
                    operatorSession.steps[4].found == true && operatorSession.steps[5].text?.contains("Retried 1 job(s)") == true,
                    "\(operatorSession.steps[5].text?.prefix(400) ?? "")")
                #expect(
                    operatorSession.steps[7].value == "0" && operatorSession.steps[8].text?.contains("discerner") == true,
                    "an operator sees the plan but no limits: \(operatorSession.steps[8].text?.prefix(400) ?? "")")

                let adminSession = try await BrowserSession.run(
                    signIn(tokens.admin) + [
                        .go(base + "/plan"), .fill("form[action=\"/actions/rate-limit\"] input[name=per_minute]", "30"),
                        .click("form[action=\"/actions/rate-limit\"] button"), .text,
                        .screenshot(BrowserSession.screenshots.appendingPathComponent("plan-admin.png").path)
                    ])
                #expect(
                    adminSession.steps[4].found == true && adminSession.steps[6].text?.contains("Rate limit set") == true,
                    "\(adminSession.steps[6].text?.prefix(600) ?? "")")
                let database = Database(conninfo: conninfo)
                #expect(
                    try await database.value("SELECT per_minute FROM discern.rate_limits WHERE key = 'discerner:analyze'", as: Double?.self) == 30)
                let actors = try await database.rows("SELECT actor || ' ' || action AS a FROM discern.operator_actions ORDER BY id", as: String.self)
                #expect(actors == ["operator token retry", "token rate_limit"], "\(actors)")
            }
        }
    }
}
