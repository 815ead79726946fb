import AnalysisModel
import ErrorCodes
import JobQueue
import Postgres
import Foundation
import SQLSchema
import TestFixtures
import Testing

@Suite("Queue", .integrationTimeLimit)
struct QueueTests {
    static let sampleAnalysis = Analysis(category: "vehicle", serviceOperator: "UPS", rawResponseJSON: #"{"ok": true}"#)
    static let samplePreparation = JobResult.Preparation(
        originalBytes: 10, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 10, sentWidth: 1,
        sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 1)
    static let sampleResult = JobResult(analysis: sampleAnalysis, preparation: samplePreparation, analyzeMilliseconds: 2)

    @Test("two workers never claim the same job")
    func claimsAreDisjoint() async throws {
        try await TestDatabase.with { conninfo in
            let paths = (1...300).map { "/images/\($0).jpg" }
            try await Database(conninfo: conninfo).withConnection { try JobQueue.enqueue($0, paths: paths) }

            let claimed = try await withThrowingTaskGroup(of: [Int].self) { group in
                for worker in ["worker-a", "worker-b"] {
                    group.addTask {
                        let database = Database(conninfo: conninfo)
                        var mine: [Int] = []
                        while true {
                            let jobs = try await database.withConnection {
                                try JobQueue.claim($0, workerID: worker, services: ["discerner"], limit: 7, leaseSeconds: 60)
                            }
                            if jobs.isEmpty { return mine }
                            mine += jobs.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            let all = claimed.flatMap { $0 }
            #expect(all.count == 300)
            #expect(Set(all).count == 300, "a job was claimed twice")
            #expect(claimed.allSatisfy { !$0.isEmpty }, "both workers should have claimed some jobs")
        }
    }

    /// With millions waiting, the claim's generic plan (its LIMIT unknown) is costed past
    /// jit_above_cost, and compiling it costs most of the claim (bench/RESULTS.md, Queue). What
    /// JIT does inside a PL/pgSQL function shows in no EXPLAIN a test can read, so this checks the
    /// setting that keeps it off (discern.claim_jobs, the older form, runs through it).
    @Test("the claim never compiles its statements with JIT, however long the queue")
    func claimRunsWithoutJIT() async throws {
        try await TestDatabase.with { conninfo in
            let rows = try await Database(conninfo: conninfo).rows(
                """
                SELECT 'jit=off' = ANY(coalesce(p.proconfig, '{}')) AS jit_off
                FROM pg_proc p WHERE p.pronamespace = 'discern'::regnamespace AND p.proname = 'claim'
                """, as: Bool.self)
            #expect(rows.count == 1)
            #expect(rows.first == true, "discern.claim runs with JIT")
        }
    }

    @Test("a completed job has exactly one result row, however often completion is sent")
    func completionIsIdempotent() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let (first, second) = try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/images/a.jpg"])
                let job = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                return (
                    try JobQueue.complete(connection, job: job, workerID: "w", result: Self.sampleResult),
                    try JobQueue.complete(connection, job: job, workerID: "w", result: Self.sampleResult)
                )
            }
            #expect(first)
            #expect(!second)
            let rows: [(count: Int, state: String)] = try await database.rows(
                "SELECT count(*), min(j.state) FROM discern.results r JOIN discern.jobs j ON j.id = r.job_id", as: Int.self, String.self)
            #expect(rows.first?.count == 1)
            #expect(rows.first?.state == "succeeded")
        }
    }

    @Test("lower priority numbers run first, but the oldest job is taken when asked for, once")
    func prioritiesCannotStarveTheOldest() async throws {
        try await TestDatabase.with { conninfo in
            try await Database(conninfo: conninfo).withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/images/ordinary.jpg"], priority: 5)
                try JobQueue.enqueue(connection, paths: (1...30).map { "/images/urgent-\($0).jpg" }, priority: 0)
                func claim(limit: Int, oldestFirst: Int) throws -> [String] {
                    try JobQueue.claim(
                        connection, workerID: "w", services: ["discerner"], limit: limit, leaseSeconds: 60,
                        oldestFirst: oldestFirst
                    ).map(\.imagePath)
                }
                let byPriority = try claim(limit: 5, oldestFirst: 0)
                #expect(!byPriority.contains("/images/ordinary.jpg"), "without oldestFirst the order is the priorities'")
                let mixed = try claim(limit: 10, oldestFirst: 1)
                #expect(mixed.count == 10 && Set(mixed).count == 10)
                #expect(mixed.contains("/images/ordinary.jpg"), "the oldest job is among the ten")
                let rest = try claim(limit: 30, oldestFirst: 3)
                #expect(rest.count == 16 && !rest.contains("/images/ordinary.jpg"), "every job once, none twice")
            }
        }
    }

    @Test("a rescued job's late completion writes nothing; a worker never rescues its own jobs")
    func leaseGuardsCompletion() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let outcome = try await database.withConnection { connection -> (Bool, Int, Bool) in
                try JobQueue.enqueue(connection, paths: ["/images/a.jpg"])
                let stale = try #require(try JobQueue.claim(connection, workerID: "slow", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                try connection.execute("UPDATE discern.jobs SET lease_expires_at = now() - interval '1 second'")
                // The late worker's own rescuer leaves it be (it is running, however late); another's does not.
                let rescuedBySelf = try JobQueue.rescue(connection, rescuer: "slow").rescued
                let rescued = rescuedBySelf == 0 ? try JobQueue.rescue(connection, rescuer: "fast").rescued : -1
                let fresh = try #require(try JobQueue.claim(connection, workerID: "fast", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                let late = try JobQueue.complete(connection, job: stale, workerID: "slow", result: Self.sampleResult)
                let current = try JobQueue.complete(connection, job: fresh, workerID: "fast", result: Self.sampleResult)
                return (late, rescued, current)
            }
            #expect(outcome == (false, 1, true))
            #expect(try await database.value("SELECT count(*) FROM discern.results", as: Int.self) == 1)
        }
    }

    @Test("a live worker (heartbeat fresh) keeps its jobs though one of its leases ran out; once its heartbeat is stale it loses them all")
    func liveWorkerKeepsItsJobs() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/images/a.jpg", "/images/b.jpg"])
                try WorkerRegistry.register(
                    connection, .init(id: "live", host: "h", pid: 1, version: "t", services: ["discerner"], heartbeatSeconds: 10))
                let jobs = try JobQueue.claim(connection, workerID: "live", services: ["discerner"], limit: 2, leaseSeconds: 60)
                #expect(jobs.count == 2)
                // One lease it did not renew (a claim whose answer it never got, in a failover).
                try connection.execute("UPDATE discern.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = \(jobs[0].id)")
                // The server has answered for long (a cluster started just now would await a worker silent since before).
                _ = try JobQueue.rescue(connection)
                try connection.execute("UPDATE discern.database_epoch SET first_seen_at = now() - interval '1 day'")
                #expect(try JobQueue.rescue(connection, rescuer: "other").rescued == 0, "a live worker was taken for stopped")
                try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '1 minute' WHERE id = 'live'")
                #expect(try JobQueue.rescue(connection, rescuer: "other").rescued == 2)
            }
        }
    }

    @Test(
        "a crash costs the jobs beside it nothing, nor a job alone by chance; a job whose workers keep crashing runs alone, and ends dead as worker_crashed only after 3 crashes while its file was being prepared"
    )
    func crashesAreAttributed() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/images/poison.jpg", "/images/a.jpg", "/images/b.jpg"])
                // The server has answered for a day: every worker was heard from since.
                _ = try JobQueue.rescue(connection)
                try connection.execute("UPDATE discern.database_epoch SET first_seen_at = now() - interval '1 day'")
                func claim(_ worker: String, holdingNothing: Bool = false, limit: Int = 3) throws -> [Job] {
                    try WorkerRegistry.register(
                        connection, .init(id: worker, host: "h", pid: 1, version: "t", services: ["discerner"], heartbeatSeconds: 2))
                    return try JobQueue.claim(
                        connection, workerID: worker, services: ["discerner"], limit: limit, leaseSeconds: 60,
                        holdingNothing: holdingNothing)
                }
                // A registered worker gone silent for more than three of its beats.
                func crash(_ worker: String) throws -> Int {
                    try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '10 seconds' WHERE id = \(worker)")
                    return try JobQueue.rescue(connection).rescued
                }
                func counts(_ id: Int) throws -> [Int] {
                    let (attempts, sharedCrashes, soloCrashes) = try #require(
                        try connection.rows(
                            "SELECT attempts, shared_crashes, solo_crashes FROM discern.jobs WHERE id = \(id)", as: Int.self, Int.self, Int.self
                        ).first)
                    return [attempts, sharedCrashes, soloCrashes]
                }
                // Two crashes with all three jobs in hand, and one with a job alone by chance (the
                // tail of a night): nobody is to blame, no attempt is used.
                for round in 1...2 {
                    #expect(try claim("w\(round)").count == 3)
                    #expect(try crash("w\(round)") == 3)
                }
                let chance = try claim("tail", limit: 1)
                #expect(chance.count == 1 && !chance[0].runsAlone)
                #expect(try crash("tail") == 1)
                #expect(try counts(chance[0].id) == [0, 3, 0], "a job alone by chance was blamed")
                #expect(try claim("w3", limit: 2).count == 2)
                #expect(try crash("w3") == 2)
                let afterShared: [(attempts: Int, sharedCrashes: Int, soloCrashes: Int, state: String)] = try connection.rows(
                    "SELECT attempts, shared_crashes, solo_crashes, state FROM discern.jobs ORDER BY id", as: Int.self, Int.self, Int.self,
                    String.self)
                #expect(afterShared.map { [$0.attempts, $0.sharedCrashes, $0.soloCrashes] } == Array(repeating: [0, 3, 0], count: 3))
                #expect(afterShared.allSatisfy { $0.state == "available" })
                // Now they are suspects: a worker with jobs in hand gets none, one holding nothing gets one, alone.
                #expect(try claim("busy").isEmpty)
                let alone = try claim("idle", holdingNothing: true)
                #expect(alone.count == 1 && alone[0].runsAlone, "\(alone)")
                let suspect = alone[0].id
                // Its worker dies while it waits on its service, its file prepared: not the file's doing.
                #expect(try crash("idle") == 1)
                #expect(try counts(suspect) == [0, 4, 0])
                // Three deaths while its file is being prepared alone, and it is dead, with a reason that says so.
                for round in 1...3 {
                    let again = try claim("idle\(round)", holdingNothing: true)
                    #expect(again.map(\.id) == [suspect], "the job the worker crashed on comes first")
                    try JobQueue.markPreparingAlone(connection, jobID: suspect, workerID: "idle\(round)", preparing: true)
                    if round == 1 {
                        // Prepared, the mark cleared: a death now is not the file's either.
                        try JobQueue.markPreparingAlone(connection, jobID: suspect, workerID: "idle\(round)", preparing: false)
                        _ = try crash("idle\(round)")
                        #expect(try counts(suspect) == [0, 5, 0])
                        _ = try claim("idle\(round)b", holdingNothing: true)
                        try JobQueue.markPreparingAlone(connection, jobID: suspect, workerID: "idle\(round)b", preparing: true)
                        _ = try crash("idle\(round)b")
                        #expect(try counts(suspect) == [1, 5, 1])
                    } else {
                        _ = try crash("idle\(round)")
                    }
                }
                let (state, errorKind, lastError, _) = try #require(
                    try connection.rows(
                        "SELECT state, error_kind, last_error, solo_crashes FROM discern.jobs WHERE id = \(suspect)",
                        as: String.self, String?.self, String.self, Int.self
                    ).first)
                #expect(state == "dead" && errorKind == "worker_crashed")
                #expect(lastError.contains("3 times while preparing this file alone"))
                // discern.retry gives it a fresh start.
                try connection.execute("SELECT discern.retry(ARRAY[\(suspect)::bigint])")
                #expect(try counts(suspect) == [0, 0, 0])
            }
        }
    }

    @Test(
        "a job whose worker keeps dying after its file is prepared, alone, ends dead as worker_crashed at its 20th shared crash; a death during an outage does not bring it there"
    )
    func crashingAfterPreparationEnds() async throws {
        try await TestDatabase.with { conninfo in
            try await Database(conninfo: conninfo).withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/images/answer-kills.jpg"])
                _ = try JobQueue.rescue(connection)
                let limit = QueueConstants.sharedCrashesBeforeDead
                try connection.execute("UPDATE discern.jobs SET shared_crashes = \(limit - 2)")
                func claimAndDie(_ worker: String) throws -> Job {
                    try WorkerRegistry.register(
                        connection, .init(id: worker, host: "h", pid: 1, version: "t", services: ["discerner"], heartbeatSeconds: 2))
                    let job = try #require(
                        try JobQueue.claim(
                            connection, workerID: worker, services: ["discerner"], limit: 1, leaseSeconds: 60, holdingNothing: true
                        ).first)
                    try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '10 seconds' WHERE id = \(worker)")
                    return job
                }
                func state() throws -> (state: String, kind: String?, error: String, shared: Int) {
                    let (state, errorKind, lastError, sharedCrashes) = try #require(
                        try connection.rows(
                            "SELECT state, error_kind, last_error, shared_crashes FROM discern.jobs", as: String.self, String?.self, String.self,
                            Int.self
                        ).first)
                    return (state, errorKind, lastError, sharedCrashes)
                }
                // Its worker last beat before the server it now finds was first seen: the outage's doing.
                #expect(try claimAndDie("before-outage").runsAlone)
                try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '50 seconds' WHERE id = 'before-outage'")
                try connection.execute("UPDATE discern.database_epoch SET first_seen_at = now() - interval '40 seconds'")
                #expect(try JobQueue.rescue(connection).rescued == 1)
                #expect(try state().state == "available" && state().shared == limit - 1)
                // Heard from since: the 20th crash, none while its file was being prepared, ends it.
                try connection.execute("UPDATE discern.database_epoch SET first_seen_at = now() - interval '1 day'")
                _ = try claimAndDie("after-preparing")
                #expect(try JobQueue.rescue(connection).rescued == 1)
                let dead = try state()
                #expect(dead.state == "dead" && dead.kind == "worker_crashed" && dead.shared == limit, "\(dead)")
                #expect(dead.error.contains("\(limit) times holding this job"), "\(dead.error)")
            }
        }
    }

    @Test(
        "after a new database server, a worker not heard from since keeps its jobs while it may still be reconnecting (30 s, or three of its beats), and its death then is not its file's; one that beat since is judged at once"
    )
    func newServerAwaitsItsWorkers() async throws {
        try await TestDatabase.with { conninfo in
            try await Database(conninfo: conninfo).withConnection { connection in
                try JobQueue.enqueue(connection, paths: ["/images/a.jpg", "/images/b.jpg"])
                var held: [String: Int] = [:]
                for worker in ["before", "since"] {
                    try WorkerRegistry.register(
                        connection, .init(id: worker, host: "h", pid: 1, version: "t", services: ["discerner"], heartbeatSeconds: 2))
                    let job = try #require(try JobQueue.claim(connection, workerID: worker, services: ["discerner"], limit: 1, leaseSeconds: 6).first)
                    // Each was preparing its file alone when it went silent.
                    try JobQueue.markPreparingAlone(connection, jobID: job.id, workerID: worker, preparing: true)
                    held[worker] = job.id
                }
                func counts(_ worker: String) throws -> [Int] {
                    let (attempts, sharedCrashes, soloCrashes) = try #require(
                        try connection.rows(
                            "SELECT attempts, shared_crashes, solo_crashes FROM discern.jobs WHERE id = \(held[worker])", as: Int.self, Int.self,
                            Int.self
                        ).first)
                    return [attempts, sharedCrashes, soloCrashes]
                }
                // The server was first seen 10 s ago: "before" last beat 20 s ago, "since" 7 s ago, each
                // now silent for more than three beats.
                _ = try JobQueue.rescue(connection)
                try connection.execute("UPDATE discern.database_epoch SET first_seen_at = now() - interval '10 seconds'")
                try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '20 seconds' WHERE id = 'before'")
                try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '7 seconds' WHERE id = 'since'")
                let first = try JobQueue.rescue(connection, rescuer: "other")
                #expect(first.rescued == 1 && first.awaitedWorkers == 1, "\(first)")
                #expect((0.1...20).contains(first.awaitedSeconds ?? 0), "\(first)")
                #expect(try counts("since") == [1, 0, 1], "a worker heard from since died preparing its file: the file's crash")
                // Its time to reconnect is over: taken for gone, and its death counted as the outage's.
                try connection.execute("UPDATE discern.database_epoch SET first_seen_at = now() - interval '31 seconds'")
                try connection.execute("UPDATE discern.workers SET last_heartbeat_at = now() - interval '40 seconds' WHERE id = 'before'")
                let second = try JobQueue.rescue(connection, rescuer: "other")
                #expect(second.rescued == 1 && second.awaitedWorkers == 0 && second.awaitedSeconds == nil, "\(second)")
                #expect(try counts("before") == [0, 1, 0], "a worker not heard from since the restart was blamed on its file")
            }
        }
    }

    @Test("a heartbeat does not wait for a job row another statement holds (its own slow completion): the others are renewed, none is lost")
    func heartbeatSkipsLockedRows() async throws {
        try await TestDatabase.with { conninfo in
            let queue = Database(conninfo: conninfo, name: "test-queue"), holder = Database(conninfo: conninfo, name: "test-holder")
            let jobs = try await queue.withConnection { connection -> [Job] in
                try JobQueue.enqueue(connection, paths: ["/images/a.jpg", "/images/b.jpg"])
                return try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 2, leaseSeconds: 1)
            }
            // Hold the first job's row, as a completion waiting on a lock would.
            try await holder.withConnection { connection in
                try connection.execute("BEGIN")
                try connection.execute("SELECT id FROM discern.jobs WHERE id = \(jobs[0].id) FOR UPDATE")
            }
            let kept = try await queue.withConnection { connection -> Set<Int> in
                // A heartbeat that waited would stop here: the limit turns waiting into a failure.
                try connection.execute("SET statement_timeout = '20s'")
                return try JobQueue.heartbeat(connection, jobIDs: jobs.map(\.id), workerID: "w", leaseSeconds: 600)
            }
            #expect(kept == Set(jobs.map(\.id)), "a held job is still the worker's")
            let leases: [(id: Int, renewed: Bool)] = try await queue.rows(
                """
                SELECT id, lease_expires_at > now() + interval '5 minutes' AS renewed FROM discern.jobs ORDER BY id
                """, as: Int.self, Bool.self)
            #expect(leases.map(\.renewed) == [false, true])
            // Nor does the rescuer take the held job, though its lease ran out.
            try await Task.sleep(for: .seconds(1.2))
            #expect(try await queue.withConnection { try JobQueue.rescue($0).rescued } == 0)
            try await holder.withConnection { try $0.execute("ROLLBACK") }
        }
    }

    @Test("a service that never starts the work cannot keep a job alive: 10 attempts are handed back, then they count; the history stays bounded")
    func givenBackAttemptsEnd() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let (states, attempts) = try await database.withConnection { connection -> ([FailureOutcome], [Int]) in
                try connection.execute("SELECT discern.enqueue('/images/a.jpg', max_attempts => 3)")
                let refusal = JobFailure(.discernerStartCollision, message: "ExecutionAlreadyExists " + String(repeating: "x", count: 3000))
                var states: [FailureOutcome] = [], attempts: [Int] = []
                for _ in 0..<13 {
                    guard let job = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first else {
                        break
                    }
                    attempts.append(job.attempt)
                    states.append(
                        try JobQueue.fail(connection, job: job, workerID: "w", failure: refusal, backoff: Backoff(baseSeconds: 0, maxSeconds: 0)))
                }
                return (states, attempts)
            }
            #expect(attempts == Array(repeating: 1, count: 11) + [2, 3], "10 handed back, then each one counts")
            #expect(states == Array(repeating: .retryScheduled, count: 12) + [.dead])
            let (givenBack, lastError, entries, longest) = try #require(
                try await database.rows(
                    """
                    SELECT given_back, last_error, jsonb_array_length(error_history) AS entries,
                           (SELECT max(length(e->>'error')) FROM jsonb_array_elements(error_history) e) AS longest
                    FROM discern.jobs
                    """, as: Int.self, String.self, Int.self, Int.self
                ).first)
            #expect(givenBack == 10)
            #expect(lastError.contains("the service kept refusing"))
            #expect(entries == 13 && longest == 500)
            // However often it is started over, the history keeps its last 100 entries.
            let histories: [(n: Int, last: String)] = try await database.rows(
                """
                SELECT jsonb_array_length(h) AS n, h->99->>'attempt' AS last FROM (
                    SELECT discern.history_with(coalesce(jsonb_agg(jsonb_build_object('attempt', i, 'error', 'e')), '[]'), jsonb_build_object('attempt', 150, 'error', 'e')) AS h
                    FROM generate_series(1, 149) i) AS x
                """, as: Int.self, String.self
            )
            let kept = histories.first
            #expect(kept?.n == 100 && kept?.last == "150")
        }
    }

    @Test("a last attempt handed back because the service failed waits twice as long each time, up to the backoff's longest: ten span about an hour")
    func serviceGiveBacksWaitLonger() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let waits = try await database.withConnection { connection -> [Double] in
                try connection.execute("SELECT discern.enqueue('/images/a.jpg', max_attempts => 1)")
                let outage = JobFailure(.http5xx, message: "analyze answered HTTP 503", outage: .serviceFailing)
                var waits: [Double] = []
                for _ in 0..<10 {
                    guard let job = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first else {
                        break
                    }
                    // Backoff without jitter: 30 s for this attempt, 600 s at most.
                    #expect(
                        try JobQueue.fail(connection, job: job, workerID: "w", failure: outage, backoff: Backoff(baseSeconds: 30, maxSeconds: 600))
                            == .retryScheduled)
                    let row = try #require(
                        try connection.rows("SELECT extract(epoch FROM run_at - now())::float8 AS wait FROM discern.jobs", as: Double?.self).first)
                    waits.append(row ?? -1)
                    try connection.execute("UPDATE discern.jobs SET run_at = now()")
                }
                return waits
            }
            // Backoff(30) jitters between 15 and 30 s; each hand-back doubles what the backoff gave.
            #expect(waits.count == 10, "\(waits)")
            for (index, wait) in waits.enumerated() {
                #expect(wait >= min(600, 15 * pow(2, Double(index))) - 1 && wait <= 600 + 1, "hand-back \(index + 1) waits \(wait) s: \(waits)")
            }
            #expect(waits.reduce(0, +) >= 3000, "ten hand-backs span \(waits.reduce(0, +)) s")
            let (state, attempts, givenBack) = try #require(
                try await database.rows("SELECT state, attempts, given_back FROM discern.jobs", as: String.self, Int.self, Int.self).first)
            #expect(state == "available" && attempts == 0 && givenBack == 10)
        }
    }

    @Test(
        "past its ten hand-backs, a service failure on a last attempt counts only once the service has completed another photo since, or after about a day: a night's outage ends no photo"
    )
    func outageEndsNoPhoto() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try connection.execute("SELECT discern.enqueue('/images/a.jpg', max_attempts => 1)")
                try connection.execute("UPDATE discern.jobs SET given_back = 10")
                let outage = JobFailure(.http5xx, message: "analyze answered HTTP 503", outage: .serviceFailing)
                let backoff = Backoff(baseSeconds: 30, maxSeconds: 600)
                func failAgain() throws -> FailureOutcome {
                    try connection.execute("UPDATE discern.jobs SET run_at = now() WHERE image_path = '/images/a.jpg'")
                    let job = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                    #expect(job.imagePath == "/images/a.jpg")
                    return try JobQueue.fail(connection, job: job, workerID: "w", failure: outage, backoff: backoff)
                }
                // The service is away for everyone: however many more times, the job waits, the longest wait each time.
                for _ in 0..<5 { #expect(try failAgain() == .retryScheduled) }
                let (state, attempts, givenBack, wait) = try #require(
                    try connection.rows(
                        "SELECT state, attempts, given_back, extract(epoch FROM run_at - now())::float8 AS wait FROM discern.jobs",
                        as: String.self, Int.self, Int.self, Double?.self
                    ).first)
                #expect(state == "available" && attempts == 0 && givenBack == 15)
                #expect((wait ?? 0) > 590)
                // Another photo gets through: the service works, so this photo's next failure is its own.
                try connection.execute("SELECT discern.enqueue('/images/b.jpg')")
                let other = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                #expect(other.imagePath == "/images/b.jpg")
                #expect(try JobQueue.complete(connection, job: other, workerID: "w", result: Self.sampleResult))
                #expect(try failAgain() == .dead)
                let (lastError, counted) = try #require(
                    try connection.rows(
                        "SELECT last_error, error_history->-1->>'counted' AS counted FROM discern.jobs WHERE image_path = '/images/a.jpg'",
                        as: String.self, String.self
                    ).first)
                #expect(lastError.contains("other photos of this service succeeded since this one last failed"))
                #expect(counted == "true")
                // With nothing to show the service works (the last photo of a queue), it still ends, after about a day.
                try connection.execute("SELECT discern.enqueue('/images/c.jpg', max_attempts => 1)")
                try connection.execute("UPDATE discern.jobs SET given_back = 149 WHERE image_path = '/images/c.jpg'")
                let last = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                #expect(last.imagePath == "/images/c.jpg")
                #expect(try JobQueue.fail(connection, job: last, workerID: "w", failure: outage, backoff: backoff) == .retryScheduled)
                try connection.execute("UPDATE discern.jobs SET run_at = now() WHERE image_path = '/images/c.jpg'")
                let again = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                #expect(try JobQueue.fail(connection, job: again, workerID: "w", failure: outage, backoff: backoff) == .dead)
                let ended = try #require(
                    try connection.rows("SELECT last_error FROM discern.jobs WHERE image_path = '/images/c.jpg'", as: String.self).first)
                #expect(ended.contains("handed back 150 times over about a day"))
            }
        }
    }

    @Test("a permanent failure ends dead at once; a transient one is retried, then dead when attempts run out")
    func failureClassification() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let states = try await database.withConnection { connection -> [FailureOutcome] in
                try connection.execute("SELECT discern.enqueue('/images/a.jpg', max_attempts => 2)")
                let permanent = JobFailure(.imageUndecodable, message: "bad")
                let transient = JobFailure(.http5xx, message: "try later")
                let quick = Backoff(baseSeconds: 0, maxSeconds: 0)
                var outcomes: [FailureOutcome] = []
                let first = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                outcomes.append(try JobQueue.fail(connection, job: first, workerID: "w", failure: transient, backoff: quick))
                let second = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                outcomes.append(try JobQueue.fail(connection, job: second, workerID: "w", failure: transient, backoff: quick))
                try connection.execute("SELECT discern.enqueue('/images/b.jpg')")
                let third = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                outcomes.append(try JobQueue.fail(connection, job: third, workerID: "w", failure: permanent))
                return outcomes
            }
            #expect(states == [.retryScheduled, .dead, .dead])
            let history = try await database.rows("SELECT jsonb_array_length(error_history) FROM discern.jobs ORDER BY id", as: Int.self)
            #expect(history == [2, 1])
        }
    }
}

@Suite("Queue operations in SQL", .integrationTimeLimit)
struct QueueOperationsTests {
    @Test("retry, retry_batch, cancel, enqueue_many with unique keys, and prune keep the results")
    func operations() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            let added = try await database.value(
                """
                SELECT discern.enqueue_many(ARRAY['/a.jpg', '/b.jpg', '/c.jpg', '/d.jpg'], batch => 'night',
                                            unique_keys => ARRAY['ka', 'kb', 'kc', 'kd'])
                """, as: Int.self
            )
            #expect(added == 4)
            let duplicate = try await database.value("SELECT discern.enqueue_many(ARRAY['/a2.jpg'], unique_keys => ARRAY['ka'])", as: Int.self)
            #expect(duplicate == 0, "a unique key already queued is skipped")

            try await database.withConnection { connection in
                let jobs = try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 3, leaseSeconds: 60)
                try JobQueue.complete(connection, job: jobs[0], workerID: "w", result: QueueTests.sampleResult)
                try JobQueue.fail(
                    connection, job: jobs[1], workerID: "w", failure: JobFailure(.imageUndecodable, message: "bad"))
                try JobQueue.fail(
                    connection, job: jobs[2], workerID: "w", failure: JobFailure(.imageUndecodable, message: "bad"))
            }
            #expect(
                try await database.value("SELECT discern.cancel(ARRAY(SELECT id FROM discern.jobs WHERE state = 'available'))", as: Int.self)
                    == 1)
            let (succeeded, dead, cancelled) = try #require(
                try await database.rows(
                    "SELECT succeeded, dead, cancelled FROM discern.batch_progress WHERE name = 'night'", as: Int.self, Int.self, Int.self
                ).first)
            #expect(succeeded == 1 && dead == 2 && cancelled == 1)
            #expect(
                try await database.rows("SELECT jobs FROM discern.errors_by_kind WHERE error_kind = 'image_undecodable'", as: Int.self).first == 2)

            #expect(try await database.value("SELECT discern.retry_batch('night')", as: Int.self) == 2)
            #expect(try await database.value("SELECT count(*) FROM discern.jobs WHERE state = 'available' AND attempts = 0", as: Int.self) == 2)

            try await database.withConnection {
                try $0.execute("UPDATE discern.jobs SET finished_at = now() - interval '40 days' WHERE finished_at IS NOT NULL")
            }
            #expect(try await database.value("SELECT discern.prune('30 days')", as: Int.self) == 2)
            #expect(
                try await database.value("SELECT count(*) FROM discern.results WHERE job_id IS NULL", as: Int.self) == 1,
                "the result of a pruned job stays")
        }
    }

    @Test("one dedupe rule for both ways in: enqueue_many and discern enqueue's staged COPY skip content whose result exists, its job pruned")
    func oneDedupeRule() async throws {
        try await TestDatabase.with { conninfo in
            let database = Database(conninfo: conninfo)
            try await database.withConnection { connection in
                try JobQueue.enqueue(connection, files: [EnqueuedFile(path: "/a.jpg", uniqueKey: "ka")], service: "discerner")
                let job = try #require(try JobQueue.claim(connection, workerID: "w", services: ["discerner"], limit: 1, leaseSeconds: 60).first)
                try JobQueue.complete(connection, job: job, workerID: "w", result: QueueTests.sampleResult)
                try connection.execute("UPDATE discern.jobs SET finished_at = now() - interval '40 days'")
                try connection.execute("SELECT discern.prune('30 days')")
            }
            #expect(try await database.value("SELECT count(*) FROM discern.jobs", as: Int.self) == 0, "the job is pruned")
            #expect(try await database.value("SELECT count(*) FROM discern.results WHERE unique_key = 'ka'", as: Int.self) == 1)

            let viaSQL = try await database.value(
                """
                SELECT discern.enqueue_many(ARRAY['/a-again.jpg', '/new.jpg'], unique_keys => ARRAY['ka', 'knew'])
                """, as: Int.self
            )
            let viaCLI = try await database.withConnection { connection in
                try JobQueue.enqueue(
                    connection, files: [EnqueuedFile(path: "/a-third.jpg", uniqueKey: "ka"), EnqueuedFile(path: "/other.jpg", uniqueKey: "kother")],
                    service: "discerner")
            }
            #expect(viaSQL == 1 && viaCLI == 1, "each added only the new content: \(String(describing: viaSQL)), \(viaCLI)")
            let queued = try await database.rows("SELECT image_path FROM discern.jobs ORDER BY id", as: String.self)
            #expect(queued == ["/new.jpg", "/other.jpg"])
        }
    }

    @Test("a plain INSERT wakes a listening worker")
    func insertNotifies() async throws {
        try await TestDatabase.with { conninfo in
            let heard = Heard()
            let listener = NotificationListener(conninfo: conninfo, channel: "discern_jobs") { heard.ring() }
            #expect(await Poll.until { heard.count > 0 }, "the listener connected")
            let before = heard.count
            try await Database(conninfo: conninfo).withConnection { try $0.execute("INSERT INTO discern.jobs (image_path) VALUES ('/x.jpg')") }
            #expect(await Poll.until { heard.count > before })
            // Stopping waits for the thread, which closes its connection as it ends: then its
            // backend goes (a moment later, as the server notices the client left).
            await listener.stop()
            let gone = await Poll.until {
                (try? await Database(conninfo: conninfo).withConnection {
                    try $0.value(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'discern-listen' AND datname = current_database()",
                        as: Int.self)
                }) == 0
            }
            #expect(gone, "the listener's connection is closed once stop returns")
        }
    }
}

private final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var rings = 0
    var count: Int { lock.withLock { rings } }
    func ring() { lock.withLock { rings += 1 } }
}
