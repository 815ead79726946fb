import AnalysisModel
import Foundation
import JobQueue
import Postgres
import SampleImages
import TestFixtures
import Testing

/// What an operator (or a row someone wrote) can hand discern: flags, settings, names and paths
/// that end up on a terminal or in SQL, a job moved back by hand, roles.
@Suite("Hostile input: operators, settings and the schema", .integrationTimeLimit)
struct OperatorInputTests {
    @Test(
        "every flag and setting is checked: one line, exit status 64, nothing wrapped around or ignored",
        arguments: [
            (["--lease-seconds", "inf"], [String: String](), "--lease-seconds"),
            (["--poll-seconds", "nan"], [:], "--poll-seconds"),
            (["--concurrency", "100000"], [:], "--concurrency"),
            (["--metrics-port", "70000"], [:], "--metrics-port"),
            ([], ["DISCERN_CONCURRENCY": "abc"], "DISCERN_CONCURRENCY=abc"),
            ([], ["DISCERN_HTTP_TIMEOUT_SECONDS": "1e300"], "DISCERN_HTTP_TIMEOUT_SECONDS"),
            ([], ["DISCERN_DISCERNER_URL": "ftp://example.com"], "DISCERN_DISCERNER_URL"),
            (["--path-root", "/nonexistent-root"], [:], "/nonexistent-root"),
            ([], ["DISCERN_POOL_MODE": "session"], "DISCERN_POOL_MODE"),
            ([], ["DISCERN_BREAKER_FAILURE_RATIO": "2"], "DISCERN_BREAKER_FAILURE_RATIO"),
            (["--prepare-threads", "0"], [:], "--prepare-threads"),
            (["--breaker-first-probe-seconds", "60", "--breaker-max-probe-seconds", "10"], [:], "longest wait between probes")
        ])
    func settingsChecked(arguments: [String], environment: [String: String], named: String) async throws {
        var environment = environment
        environment["DISCERN_DISCERNER_URL"] = environment["DISCERN_DISCERNER_URL"] ?? "http://127.0.0.1:9"
        environment["DISCERN_PATH_ROOTS"] = environment["DISCERN_PATH_ROOTS"] ?? "/tmp"
        let (status, output) = try await Subprocess.runWithStatus(
            try WorkerProcess.binary.path, ["work", "--drain"] + arguments,
            environment: environment)
        #expect(status == 64, "\(output)")
        #expect(output.hasPrefix("error: ") && output.contains(named), "\(output)")
        #expect(output.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "one line: \(output)")
    }

    @Test("a batch named like SQL or shell is quoted in the report's retry hint: pasting it retries, and deletes nothing")
    func reportHintQuoted() async throws {
        try await TestDatabase.with { conninfo in
            let name = "x'); DELETE FROM discern.results; --"
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/a.jpg"], batch: name)
                try connection.execute("UPDATE discern.jobs SET state = 'dead', error_kind = 'test', last_error = 'bad', finished_at = now()")
                try connection.execute(
                    "INSERT INTO discern.results (image_path, backend, action, raw_response, original_bytes, original_width, original_height, original_format, sent_bytes, sent_width, sent_height, sent_format, passed_through, prepare_ms, analyze_ms) VALUES ('/b.jpg', 'discerner', 'analyze', '{}', 1, 1, 1, 'jpeg', 1, 1, 1, 'jpeg', true, 1, 1)"
                )
            }
            let report = try await Subprocess.run(try WorkerProcess.binary.path, ["report", "--batch", name, "--database-url", conninfo])
            let hint = try #require(report.split(separator: "`").first { $0.hasPrefix("discern retry --batch ") }.map(String.init))
            #expect(hint == #"discern retry --batch 'x'\''); DELETE FROM discern.results; --'"#, "\(hint)")
            let pasted = try WorkerProcess.binary.path + hint.dropFirst("discern".count) + " --database-url " + TestShell.quoted(conninfo)
            let retried = try await Subprocess.run("/bin/sh", ["-c", pasted])
            #expect(retried.contains("retried 1 job(s)"), "\(retried)")
            #expect(try await database.value("SELECT count(*) FROM discern.results", as: Int.self) == 1)
        }
    }

    @Test("CR and ESC in a path or a service's string reach no terminal raw: results and logs show them escaped")
    func controlCharacters() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let hostile = "/tmp/\u{1B}[2J\u{1B}[31mcleared\rover.jpg"
                let database = Database(conninfo: conninfo)
                // Typed as String: each is sent as a parameter, never spliced into the statement as SQL.
                let category: String = "\u{1B}]0;owned\u{07}van", longOperator = String(repeating: "Z", count: 5000)
                let isolated: String = "\u{2066}gpj.exe\u{2069}\u{9B}2J UPS"
                try await database.withConnection { connection in
                    try JobQueue.enqueue(connection, paths: [hostile])
                    try connection.execute(
                        "INSERT INTO discern.results (image_path, backend, action, category, operator, raw_response, original_bytes, original_width, original_height, original_format, sent_bytes, sent_width, sent_height, sent_format, passed_through, prepare_ms, analyze_ms) VALUES (\(hostile), 'discerner', 'analyze', \(category), \(longOperator), '{}', 1, 1, 1, 'jpeg', 1, 1, 1, 'jpeg', true, 1, 1)"
                    )
                    // Bidirectional isolates (U+2066-2069) reorder what a terminal shows; U+009B (C1 CSI)
                    // starts a command in many terminals.
                    try connection.execute(
                        "INSERT INTO discern.results (image_path, backend, action, category, operator, raw_response, original_bytes, original_width, original_height, original_format, sent_bytes, sent_width, sent_height, sent_format, passed_through, prepare_ms, analyze_ms) VALUES ('/tmp/b.jpg', 'discerner', 'analyze', 'van', \(isolated), '{}', 1, 1, 1, 'jpeg', 1, 1, 1, 'jpeg', true, 1, 1)"
                    )
                }
                for format in ["table", "json"] {
                    let shown = try await Subprocess.run(try WorkerProcess.binary.path, ["results", "--database-url", conninfo, "--format", format])
                    #expect(!shown.unicodeScalars.contains { [0x2066, 0x2069, 0x9B].contains($0.value) }, "\(format): \(shown.debugDescription)")
                    #expect(shown.contains("UPS"), "\(format): \(shown.debugDescription)")
                }
                let results = try await Subprocess.run(try WorkerProcess.binary.path, ["results", "--database-url", conninfo])
                #expect(!results.contains("\u{1B}") && !results.contains("\r") && !results.contains("\u{07}"), "\(results.debugDescription)")
                #expect(results.contains("\\u{1b}"), "shown escaped")
                #expect(!results.contains(String(repeating: "Z", count: 100)), "cells are cut")

                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: "http://127.0.0.1:9", logFolder: folder,
                    arguments: ["--drain", "--log-level", "info"])
                await worker.expectExit()
                #expect(worker.output.contains("job failed"), "\(worker.output.suffix(500))")
                #expect(!worker.output.contains("\u{1B}") && !worker.output.contains("\r"), "\(worker.output.debugDescription.suffix(800))")
            }
        }
    }

    @Test("files named with a CR LF, a tab or a backslash are enqueued by `discern enqueue` under their exact names, beside the others")
    func lineBreaksInFileNames() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let photos = folder.appendingPathComponent("photos")
                try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
                // "\r\n" is one Swift Character: the COPY's escaping once missed it, and PostgreSQL
                // refused the whole chunk, so every night's enqueue stopped at that folder.
                let names = ["crlf\r\nname.jpg", "tab\there.jpg", "back\\slash.jpg", "lf\nonly.jpg", "plain.jpg"]
                let photo = try SampleImages.photo(width: 64, height: 48, seed: 85)
                for name in names { _ = try photos.write(photo, as: name) }
                let output = try await Subprocess.run(
                    try WorkerProcess.binary.path,
                    ["enqueue", photos.path, "--database-url", conninfo, "--no-dedupe"], allowFailure: true)
                #expect(output.contains("enqueued \(names.count) job(s)"), "\(output)")
                let stored = try await Database(conninfo: conninfo, name: "test-names").rows("SELECT image_path FROM discern.jobs", as: String.self)
                #expect(Set(stored) == Set(names.map { photos.appendingPathComponent($0).path }), "\(stored.map(\.debugDescription))")
            }
        }
    }

    @Test("a succeeded job moved back by hand is refused with a hint; its one result stays")
    func succeededStaysSucceeded() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let error = try await database.withConnection { connection -> PostgresError? in
                try JobQueue.enqueue(connection, paths: ["/a.jpg"])
                let job = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                try JobQueue.complete(
                    connection, job: job, workerID: "w",
                    result: JobResult(
                        analysis: .init(rawResponseJSON: "{}"),
                        preparation: .init(
                            originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1, sentWidth: 1,
                            sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 1),
                        analyzeMilliseconds: 1))
                do {
                    try connection.execute("UPDATE discern.jobs SET state = 'available' WHERE id = \(job.id)")
                    return nil
                } catch let error as PostgresError {
                    return error
                }
            }
            #expect(error?.sqlState == "23514")
            #expect(error?.message.contains("already succeeded") == true && error?.message.contains("discern.enqueue") == true)
            let (state, results) = try #require(
                try await database.rows(
                    "SELECT j.state, (SELECT count(*) FROM discern.results) AS results FROM discern.jobs j", as: String.self, Int.self
                ).first)
            #expect(state == "succeeded" && results == 1)
        }
    }

    @Test(
        "least privilege: the reader sees results but not raw answers or params; the enqueuer adds jobs and reads nothing; the worker works; only the erase role erases"
    )
    func roles() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            func denied(_ role: String, _ sql: SQL) async throws -> Bool {
                try await database.withConnection { connection -> Bool in
                    try connection.execute("SET ROLE \(unescaped: role)")
                    defer { _ = try? connection.execute("RESET ROLE") }
                    do {
                        try connection.execute(sql)
                        return false
                    } catch let error as PostgresError where error.sqlState == "42501" {
                        return true
                    }
                }
            }
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/a.jpg"], paramsJSON: #"{"templateId": "secret-person"}"#)
            }
            #expect(try await !denied("discern_reader", "SELECT operator, confidence, details FROM discern.results"))
            #expect(try await !denied("discern_reader", "SELECT * FROM discern.entity_sightings, discern.queue_depth, discern.batch_progress"))
            #expect(try await !denied("discern_reader", "SELECT image_path, state, last_error FROM discern.jobs"))
            #expect(try await denied("discern_reader", "SELECT raw_response FROM discern.results"))
            #expect(try await denied("discern_reader", "SELECT params FROM discern.jobs"))
            #expect(try await denied("discern_reader", "SELECT * FROM discern.latest_results"))
            #expect(try await denied("discern_reader", "DELETE FROM discern.jobs"))
            // Erasing is the erase role's alone; a pending step's params (which name the subject) are the reader's never.
            for role in ["discern_reader", "discern_enqueue", "discern_worker", "discern_enroll"] {
                #expect(try await denied(role, "SELECT * FROM discern.erase('photo', '/a.jpg', true)"), "\(role) may erase")
            }
            #expect(try await !denied("discern_erase", "SELECT * FROM discern.erase('photo', '/a.jpg', true)"))
            #expect(try await !denied("discern_erase", "SELECT state, removed FROM discern.erasure_requests"))
            #expect(try await denied("discern_erase", "SELECT * FROM discern.results"))
            #expect(try await denied("discern_reader", "SELECT params FROM discern.erasure_steps"))
            #expect(try await denied("discern_reader", "SELECT raw_response FROM discern.trial_results"))
            #expect(try await !denied("discern_reader", "SELECT state, outcome FROM discern.erasure_steps"))

            #expect(try await !denied("discern_enqueue", "SELECT discern.enqueue('/b.jpg', batch => 'night')"))
            #expect(try await !denied("discern_enqueue", "INSERT INTO discern.jobs (image_path) VALUES ('/c.jpg')"))
            // (It may count jobs: discern.enqueue returns the new id, so it holds SELECT on jobs.id alone.)
            #expect(try await denied("discern_enqueue", "SELECT image_path, params FROM discern.jobs"))
            #expect(try await denied("discern_enqueue", "SELECT * FROM discern.results"))
            #expect(try await denied("discern_enqueue", "UPDATE discern.jobs SET priority = 1"))
            // Batch summaries show error messages: readers may, enqueuers may not; their triggers run
            // for both (the enqueue above marked its batch changed).
            #expect(try await !denied("discern_reader", "SELECT discern.batch_summary(id) FROM discern.batches"))
            #expect(try await denied("discern_enqueue", "SELECT discern.batch_summary(1)"))

            // The enqueuer creates a new available job and nothing else.
            func refusal(_ role: String, _ sql: SQL) async throws -> String? {
                try await database.withConnection { connection -> String? in
                    try connection.execute("SET ROLE \(unescaped: role)")
                    defer { _ = try? connection.execute("RESET ROLE") }
                    do {
                        try connection.execute(sql)
                        return nil
                    } catch let error as PostgresError {
                        return error.sqlState ?? "?"
                    }
                }
            }
            #expect(
                try await refusal(
                    "discern_enqueue", "INSERT INTO discern.jobs (image_path, state, finished_at) VALUES ('/done.jpg', 'succeeded', now())")
                    == "42501",
                "a finished job that never ran")
            #expect(
                try await refusal(
                    "discern_enqueue",
                    """
                    INSERT INTO discern.jobs (image_path, state, lease_owner, lease_expires_at) VALUES ('/stuck.jpg', 'running', 'x', 'infinity')
                    """) == "42501", "a running job no rescuer would ever take back")
            #expect(
                try await refusal("discern_enqueue", "INSERT INTO discern.jobs (image_path, attempts, error_history) VALUES ('/h.jpg', 0, '[]')")
                    == "42501")
            #expect(
                try await refusal(
                    "discern_enqueue",
                    """
                    INSERT INTO discern.jobs (image_path, params) VALUES ('/big.jpg', jsonb_build_object('x', repeat('a', 70000)))
                    """) == "23514", "params over 64 KB")
            #expect(
                try await refusal(
                    "discern_enqueue", "SELECT discern.enqueue('/fine.jpg', run_at => now(), priority => 2::smallint, max_attempts => 3)") == nil)
            // OOTO enrolments and deletions change the service's records: discern_enroll only.
            #expect(
                try await refusal(
                    "discern_enqueue",
                    #"SELECT discern.enqueue('/f.jpg', backend => 'ooto', action => 'delete', params => '{"templateId": "anyone"}')"#) == "42501")
            #expect(
                try await refusal("discern_enqueue", #"SELECT discern.enqueue_many(ARRAY['/f.jpg'], backend => 'ooto', action => 'enroll')"#)
                    == "42501")
            #expect(try await refusal("discern_enqueue", "SELECT discern.enqueue('/f.jpg', backend => 'ooto', action => 'identify')") == nil)
            // Pausing a service stops every worker: operators (discern_worker) only.
            #expect(try await refusal("discern_enqueue", "SELECT discern.pause('discerner')") == "42501")
            #expect(try await refusal("discern_reader", "SELECT discern.resume('discerner')") == "42501")
            #expect(try await refusal("discern_reader", "SELECT count(*) FROM discern.paused_backends") == nil)
            #expect(
                try await refusal("discern_enqueue", "INSERT INTO discern.operator_actions (actor, action, scope) VALUES ('x', 'retry', 'forged')")
                    == "42501")
            let enroller = "enroller_\(UUID().uuidString.prefix(8).lowercased())"
            try await database.execute("CREATE ROLE \(unescaped: enroller) IN ROLE discern_enqueue, discern_enroll")
            #expect(
                try await refusal(
                    enroller, #"SELECT discern.enqueue('/f.jpg', backend => 'ooto', action => 'delete', params => '{"templateId": "t1"}')"#) == nil)
            try await database.execute("DROP ROLE \(unescaped: enroller)")

            let claimed = try await database.withConnection { connection -> Int in
                try connection.execute("SET ROLE discern_worker")
                defer { _ = try? connection.execute("RESET ROLE") }
                let jobs = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 5, leaseSeconds: 60)
                try connection.execute("SELECT * FROM discern.take_rate_tokens('discerner:analyze', 1)")
                return jobs.count
            }
            #expect(claimed == 4)
            #expect(try await denied("discern_worker", "DROP TABLE discern.results"))
        }
    }
}
