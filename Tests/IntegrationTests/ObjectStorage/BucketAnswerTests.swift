import Foundation
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// What a real bucket answers on its first night, beside the photos: archived objects, a bucket
/// in another region, slow-downs, a clock that is off, keys named as people name files, a store
/// behind a private CA. SeaweedFS judges signatures and keys; what it does not answer as AWS S3
/// does is answered by `S3Front` in front of it.
@Suite("A real bucket's answers (SeaweedFS, and AWS's answers where it differs)", .integrationTimeLimit)
struct BucketAnswerTests {
    /// A bucket of SeaweedFS's with `photos` under night/, a database and a folder, for one test;
    /// with `front`, discern is pointed at an `S3Front` before the store.
    struct Night {
        let s3: SeaweedServer
        let conninfo: String
        let folder: URL
        let front: S3Front?
        /// discern's variables: the store's key, its URL (the front's), the roots.
        var environment: [String: String] {
            s3.environment().merging(["AWS_ENDPOINT_URL_S3": front?.url ?? s3.endpoint, "DISCERN_PATH_ROOTS": FleetBucket.roots]) { $1 }
        }

        static func with(
            photos: Int, front: Bool = false, certificate: (cert: String, key: String)? = nil, _ body: (Night) async throws -> Void
        ) async throws {
            try await SeaweedServer.with { s3 in
                try await TestDatabase.with { conninfo in
                    try await TestFolder.with { folder in
                        if photos > 0 { try await BucketTests.upload(photos, to: s3, prefix: "night/", folder: folder) }
                        guard front else { return try await body(Night(s3: s3, conninfo: conninfo, folder: folder, front: nil)) }
                        try await S3Front.with(upstream: s3.endpoint, in: folder, certificate: certificate) { front in
                            try await body(Night(s3: s3, conninfo: conninfo, folder: folder, front: front))
                        }
                    }
                }
            }
        }

        /// `discern enqueue s3://fleet/night/` and `extra`, with `environment` (the night's own by default).
        func enqueue(_ extra: [String] = [], environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
            try await BucketTests.discern(["enqueue", FleetBucket.roots, "--database-url", conninfo] + extra, environment ?? self.environment)
        }

        /// A worker draining the queue, rate limits lifted, the service simulated; it has exited.
        func drain(environment: [String: String]? = nil, arguments: [String] = []) async throws -> WorkerProcess {
            try await BucketTests.unthrottle(conninfo)
            return try await TestSimulator.with(.unthrottled) { simulator in
                let worker = try WorkerProcess(
                    conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                    arguments: ["--drain", "--path-root", FleetBucket.roots] + arguments, environment: environment ?? self.environment)
                _ = await worker.waitForExit()
                return worker
            }
        }
    }

    @Test(
        "an object archived after it was enqueued ends dead as object_archived and trips no breaker; enqueue leaves out and counts a Glacier object; a bucket in another region is followed there once; SlowDown is waited out"
    )
    func archivedRedirectedSlowedDown() async throws {
        try await Night.with(photos: 8, front: true) { night in
            let front = try #require(night.front)
            let glacier = night.folder.appendingPathComponent("old.jpg")
            try SampleImages.photo(width: 96, height: 64, seed: 77).write(to: glacier)
            try await night.s3.tool(["put-as", "fleet", "night/old.jpg", glacier.path, "GLACIER"])
            // The bucket is in eu-west-1; discern is told us-east-1.
            try await front.control(["regions": ["fleet": "eu-west-1"], "region_answer": "redirect"])
            let enqueue = try await night.enqueue()
            #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 8 job(s)"), "\(enqueue.output)")
            #expect(enqueue.output.contains("left out 1 object(s) in archive storage (GLACIER 1)"), "\(enqueue.output)")
            // A lifecycle rule moves one to Glacier after it was enqueued; the store slows down twice.
            try await front.control(["archived": ["fleet/night/photo-3.jpg"], "weather": 2, "weather_code": "SlowDown", "region_answer": "malformed"])
            // A photo at a time: few requests leave before the first refusal.
            let worker = try await night.drain(arguments: ["--concurrency", "1", "--prepare-threads", "1"])
            #expect(worker.exitStatus == 1, "one job dead: exit 1, not \(String(describing: worker.exitStatus)): \(worker.output.suffix(1500))")
            let dead: [(imagePath: String, kind: String, error: String)] = try await Database(conninfo: night.conninfo).rows(
                "SELECT image_path, coalesce(error_kind, '-') AS kind, coalesce(last_error, '') AS error FROM discern.jobs WHERE state = 'dead'",
                as: String.self, String.self, String.self)
            #expect(dead.count == 1 && dead.first?.imagePath == "s3://fleet/night/photo-3.jpg", "\(dead)")
            let error = dead.first?.error ?? ""
            #expect(dead.first?.kind == "object_archived" && error.contains("InvalidObjectState") && error.contains("restore"), "\(error)")
            #expect(
                try await Database(conninfo: night.conninfo).rows("SELECT 1 FROM discern.service_breakers", as: Int.self).count == 0,
                "an archived photo tripped the breaker")
            #expect(try await TestDatabase.census(night.conninfo).succeeded == 7)
            let stats = try await front.stats()
            #expect(stats.archived == 1 && stats.weather == 2, "\(stats.statuses)")
            // The enqueue's first request, and the worker's first requests in flight before the
            // first answer came: each process remembers the bucket's region after that (9
            // requests were sent in all).
            #expect((2...4).contains(stats.redirected), "asked in the wrong region \(stats.redirected) times")
        }
    }

    @Test(
        "a host whose clock is 20 minutes behind enqueues and drains a bucket: the signature is made in the store's time once it says RequestTimeTooSkewed"
    )
    func clockTwentyMinutesOff() async throws {
        try await Night.with(photos: 5) { night in
            // The processes' wall clock 20 minutes behind, their monotonic clocks true, as on a
            // host whose NTP stopped (scripts/skewed-clock.c).
            let skewed = night.environment.merging(["LD_PRELOAD": try await Self.skewedClock(in: night.folder), "DISCERN_SKEW_SECONDS": "-1200"]) {
                $1
            }
            let enqueue = try await night.enqueue(environment: skewed)
            #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 5 job(s)"), "\(enqueue.output)")
            let worker = try await night.drain(environment: skewed)
            #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
            #expect(
                // The store's Date has whole seconds.
                worker.output.contains("this host's clock is off")
                    && (1_199...1_201).contains { worker.output.contains("store_ahead_seconds=\($0)") },
                "\(worker.output.suffix(1500))")
            #expect(try await TestDatabase.census(night.conninfo) == QueueCensus(succeeded: 5, results: 5, jobsWithOneResult: 5))
            // The store does refuse a signature 20 minutes off: botocore, under the same clock, is refused.
            let s3 = night.s3
            let refused = try await Subprocess.runWithStatus(
                try Python.onPath(),
                [
                    ChaosJobs.repository.appendingPathComponent("scripts/s3_tool.py").path, "--endpoint", s3.endpoint, "--key", s3.accessKey,
                    "--secret", s3.secretKey, "head", "fleet", "night/photo-0.jpg"
                ], environment: skewed)
            #expect(
                refused.status != 0 && refused.output.contains("403"),
                "SeaweedFS took a signature 20 minutes off: the test proves nothing (\(refused.output.suffix(300)))")
        }
    }

    @Test(
        "an enqueue the store cuts short on its second page stops with where it got to (exit 69); run again, it goes on after that key: 1,100 jobs, none twice, even without dedupe"
    )
    func listingResumes() async throws {
        try await Night.with(photos: 1_100, front: true) { night in
            let front = try #require(night.front)
            let arguments = ["--batch", "night", "--no-dedupe"]
            // Every page after the first: the store's weather, longer than a page's retries.
            try await front.control(["weather": 100, "weather_code": "SlowDown", "weather_match": "continuation-token"])
            let cut = try await night.enqueue(arguments)
            #expect(
                cut.status == 69 && cut.output.contains("run the same enqueue again") && cut.output.contains("SlowDown"),
                "\(cut.status): \(cut.output)")
            let first = try await Database(conninfo: night.conninfo).rows("SELECT count(*) FROM discern.jobs", as: Int.self).first
            #expect(first == 1_000, "the first page's jobs are in: \(String(describing: first))")
            try await front.control(["weather": 0])
            let resumed = try await night.enqueue(arguments)
            #expect(
                resumed.status == 0 && resumed.output.contains("went on after night/") && resumed.output.contains("enqueued 100 job(s)"),
                "\(resumed.status): \(resumed.output)")
            let listed: [(jobs: Int, paths: Int, left: Int)] = try await Database(conninfo: night.conninfo).rows(
                "SELECT count(*) AS jobs, count(DISTINCT image_path) AS paths, (SELECT count(*) FROM discern.listing_checkpoints) AS left FROM discern.jobs",
                as: Int.self, Int.self, Int.self
            )
            let counts = listed.first
            #expect(counts?.jobs == 1_100 && counts?.paths == 1_100, "jobs and paths: \(String(describing: counts))")
            #expect(counts?.left == 0, "a finished listing leaves no checkpoint")
        }
    }

    static let peopleKeys = [
        "night/odd/truck 17.jpg", "night/odd/a+b.jpg", "night/odd/100%.jpg", "night/odd/été-ü.jpg", "night/odd/x;y.jpg", "night/odd/~tilde.jpg",
        "night/odd/a&b=c.jpg", "night/odd/bell\u{7}.jpg", "night/odd/tab\there.jpg"
    ]
    /// Keys SeaweedFS cannot hold (it refuses `/./` and folds `//`): the front holds them.
    static let frontKeys = ["night/odd/a/./b.jpg", "night/odd/a//b.jpg"]

    @Test(
        "keys as people name files (space, +, %, non-ASCII, ;, ~, &, =, control characters, /./, //) are enqueued and analysed exactly once each, read back byte for byte; a control character does not stop the listing"
    )
    func keysAsPeopleNameThem() async throws {
        try await Night.with(photos: 0, front: true) { night in
            let front = try #require(night.front)
            _ = try? await night.s3.tool(["mkbucket", "fleet"])
            for (index, key) in Self.peopleKeys.enumerated() {
                let file = night.folder.appendingPathComponent("photo-\(index).jpg")
                try SampleImages.photo(width: 96, height: 64, seed: 300 + index).write(to: file)
                try await night.s3.tool(["put-as", "fleet", key, file.path])
            }
            let local = try Dictionary(
                uniqueKeysWithValues: Self.frontKeys.enumerated().map { index, key in
                    ("fleet/\(key)", try SampleImages.photo(width: 96, height: 64, seed: 400 + index).base64EncodedString())
                })
            try await front.control(["local": local, "key_id": night.s3.accessKey, "secret": night.s3.secretKey])
            let enqueue = try await night.enqueue()
            let all = Self.peopleKeys.count + Self.frontKeys.count
            #expect(enqueue.status == 0 && enqueue.output.contains("enqueued \(all) job(s)"), "\(enqueue.output)")
            let worker = try await night.drain()
            #expect(worker.exitStatus == 0, "\(worker.output.suffix(2000))")
            let paths: [(imagePath: String, state: String)] = try await Database(conninfo: night.conninfo).rows(
                "SELECT image_path, state FROM discern.jobs", as: String.self, String.self)
            #expect(
                Set(paths.map(\.imagePath)) == Set((Self.peopleKeys + Self.frontKeys).map { "s3://fleet/\($0)" }) && paths.count == all, "\(paths)")
            #expect(paths.allSatisfy { $0.state == "succeeded" }, "\(paths)")
            #expect(try await TestDatabase.census(night.conninfo) == QueueCensus(succeeded: all, results: all, jobsWithOneResult: all))
            let gets = try await front.stats().local_gets
            #expect(gets == Dictionary(uniqueKeysWithValues: Self.frontKeys.map { ("fleet/\($0)", 1) }), "the front served \(gets)")
        }
    }

    @Test("a store behind a private CA: read with AWS_CA_BUNDLE naming it; without it, enqueue stops with one line that names the setting")
    func privateCA() async throws {
        try await TestFolder.with { ca in
            let (bundle, certificate) = try await Self.privateCA(in: ca)
            try await Night.with(photos: 3, front: true, certificate: certificate) { night in
                let untrusted = try await night.enqueue()
                #expect(
                    untrusted.status == 69 && untrusted.output.contains("AWS_CA_BUNDLE") && untrusted.output.split(separator: "\n").count <= 2,
                    "\(untrusted.status): \(untrusted.output)")
                let trusting = night.environment.merging(["AWS_CA_BUNDLE": bundle]) { $1 }
                let enqueue = try await night.enqueue(environment: trusting)
                #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 3 job(s)"), "\(enqueue.output)")
                let worker = try await night.drain(environment: trusting)
                #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                #expect(try await TestDatabase.census(night.conninfo) == QueueCensus(succeeded: 3, results: 3, jobsWithOneResult: 3))
            }
        }
    }

    /// scripts/skewed-clock.c built into `folder`: the library to preload.
    static func skewedClock(in folder: URL) async throws -> String {
        let library = folder.appendingPathComponent("skewed-clock.so").path
        let source = ChaosJobs.repository.appendingPathComponent("scripts/skewed-clock.c").path
        let compiler = ["clang", "cc", "gcc"].lazy.compactMap { name in
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }.first
        guard let compiler else { throw TestSetupError("no C compiler on PATH to build scripts/skewed-clock.c") }
        let built = try await Subprocess.runWithStatus(compiler, ["-shared", "-fPIC", "-o", library, source, "-ldl"])
        guard built.status == 0 else { throw TestSetupError("\(compiler) scripts/skewed-clock.c: \(built.output)") }
        return library
    }

    /// A CA of the test's own (openssl) and a certificate it signed for 127.0.0.1: the CA's PEM
    /// file, and the server's certificate and key.
    static func privateCA(in folder: URL) async throws -> (bundle: String, certificate: (cert: String, key: String)) {
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let extensions = path("san.cnf")
        try Data("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n".utf8).write(to: URL(fileURLWithPath: extensions))
        for arguments in [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj",
                "/CN=discern test CA"
            ],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("store.key"), "-out", path("store.csr"), "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", path("store.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial", "-out",
                path("store.pem"),
                "-days", "2", "-extfile", extensions
            ]
        ] {
            let made = try await Subprocess.runWithStatus("/usr/bin/openssl", arguments)
            guard made.status == 0 else { throw TestSetupError("openssl \(arguments.first ?? ""): \(made.output)") }
        }
        return (path("ca.pem"), (path("store.pem"), path("store.key")))
    }
}
