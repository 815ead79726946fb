import ServiceClients
import Foundation
import ObjectStorage
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// Photos where fleets keep them: a real S3 server (SeaweedFS) with SigV4 enforced, discern's
/// enqueue listing a prefix, workers with no shared folder reading the objects, and discern's
/// own upload to Image Discerner's bucket checked by a real S3 server, not only by our verifier.
@Suite("Photos in a bucket (SeaweedFS, SigV4 enforced)", .integrationTimeLimit)
struct BucketTests {
    static let roots = "s3://fleet/night/"

    @Test(
        "2,000 photos in a bucket: enqueue s3:// pages past 1,000 keys and adds each once; two workers that share no folder drain them, one result each; a rerun of the enqueue adds none"
    )
    func nightFromABucket() async throws {
        try await SeaweedServer.with { s3 in
            try await TestDatabase.with { conninfo in
                try await TestFolder.with { folder in
                    try await Self.upload(2_000, to: s3, prefix: "night/", folder: folder)
                    let environment = s3.environment().merging(["DISCERN_PATH_ROOTS": Self.roots]) { $1 }
                    let enqueue = try await Self.discern(["enqueue", Self.roots, "--database-url", conninfo, "--batch", "night"], environment)
                    #expect(enqueue.status == 0 && enqueue.output.contains("enqueued 2000 job(s)"), "\(enqueue.output)")
                    try await Self.unthrottle(conninfo)
                    try await TestSimulator.with(.unthrottled) { simulator in
                        let workers = try (0..<2).map { index in
                            // Each its own temporary folder: nothing on disk is shared.
                            let own = folder.appendingPathComponent("worker-\(index)")
                            try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
                            return try WorkerProcess(
                                conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                                arguments: ["--drain", "--path-root", Self.roots],
                                environment: environment.merging(["TMPDIR": own.path]) { $1 })
                        }
                        for worker in workers { _ = await worker.waitForExit() }
                        let statuses = workers.map(\.exitStatus)
                        #expect(statuses == [0, 0], "exit statuses \(statuses): \(workers.map { $0.output.suffix(1500) })")
                    }
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census == QueueCensus(succeeded: 2_000, results: 2_000, jobsWithOneResult: 2_000), "\(census)")
                    let again = try await Self.discern(["enqueue", Self.roots, "--database-url", conninfo, "--batch", "night"], environment)
                    #expect(again.status == 0 && again.output.contains("enqueued 0 job(s)"), "\(again.output)")
                }
            }
        }
    }

    @Test(
        "an object deleted after enqueue ends dead naming its key; an empty one is refused from its HEAD; one outside the allowed prefix ends dead as a trust-boundary refusal; the others succeed; a bucket that does not exist stops enqueue with one line"
    )
    func missingAndOutside() async throws {
        try await SeaweedServer.with { s3 in
            try await TestDatabase.with { conninfo in
                try await TestFolder.with { folder in
                    try await Self.upload(3, to: s3, prefix: "night/", folder: folder)
                    try await Self.upload(1, to: s3, prefix: "private/", folder: folder)
                    let environment = s3.environment().merging(["DISCERN_PATH_ROOTS": Self.roots]) { $1 }
                    let enqueue = try await Self.discern(["enqueue", Self.roots, "--database-url", conninfo], environment)
                    #expect(enqueue.status == 0, "\(enqueue.output)")
                    try await s3.tool(["delete", "fleet", "night/photo-1.jpg"])
                    let empty = folder.appendingPathComponent("empty.jpg")
                    try Data().write(to: empty)
                    try await s3.tool(["put", "fleet", "night/", empty.path])
                    try await Database(conninfo: conninfo).withConnection { try $0.execute("SELECT discern.enqueue('s3://fleet/night/empty.jpg')") }
                    let nowhere = try await Self.discern(
                        ["enqueue", "s3://no-such-bucket/night/", "--database-url", conninfo],
                        s3.environment().merging(["DISCERN_PATH_ROOTS": "s3://no-such-bucket/"]) { $1 })
                    #expect(
                        nowhere.status == 64 && nowhere.output.contains("no-such-bucket") && nowhere.output.split(separator: "\n").count <= 2,
                        "\(nowhere.status): \(nowhere.output)")
                    try await Database(conninfo: conninfo).withConnection { connection in
                        try connection.execute("SELECT discern.enqueue('s3://fleet/private/photo-0.jpg')")
                    }
                    try await Self.unthrottle(conninfo)
                    try await TestSimulator.with(.unthrottled) { simulator in
                        let worker = try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                            arguments: ["--drain", "--path-root", Self.roots], environment: environment)
                        _ = await worker.waitForExit()
                        #expect(
                            worker.exitStatus == 1,
                            "some jobs died: exit 1, not \(String(describing: worker.exitStatus)): \(worker.output.suffix(1500))")
                    }
                    let rows = try await Database(conninfo: conninfo).rows(
                        """
                        SELECT image_path, state, coalesce(error_kind, '-') AS kind, coalesce(last_error, '') AS error FROM discern.jobs ORDER BY image_path
                        """,
                        as: String.self, String.self, String.self, String.self)
                    let outcome = Dictionary(
                        uniqueKeysWithValues: rows.map { path, state, kind, error in
                            (path, (state: state, kind: kind, error: error))
                        })
                    let deleted = outcome["s3://fleet/night/photo-1.jpg"], outside = outcome["s3://fleet/private/photo-0.jpg"]
                    #expect(
                        deleted?.state == "dead" && deleted?.kind == "file_not_found" && deleted?.error.contains("night/photo-1.jpg") == true,
                        "\(String(describing: deleted))")
                    #expect(outside?.state == "dead" && outside?.kind == "path_not_allowed", "\(String(describing: outside))")
                    #expect(
                        outcome["s3://fleet/night/photo-0.jpg"]?.state == "succeeded"
                            && outcome["s3://fleet/night/photo-2.jpg"]?.state == "succeeded",
                        "\(outcome)")
                    let nothing = outcome["s3://fleet/night/empty.jpg"]
                    #expect(
                        nothing?.state == "dead" && nothing?.kind == "image_empty" && nothing?.error.contains("0 bytes") == true,
                        "\(String(describing: nothing))")
                }
            }
        }
    }

    @Test(
        "a wrong secret: no job ends dead, the breaker names the bucket and the access key id (never the secret); a worker with the right secret finishes the night without discern retry"
    )
    func wrongSecret() async throws {
        try await SeaweedServer.with { s3 in
            try await TestDatabase.with { conninfo in
                try await TestFolder.with { folder in
                    try await Self.upload(12, to: s3, prefix: "night/", folder: folder)
                    let environment = s3.environment().merging(["DISCERN_PATH_ROOTS": Self.roots]) { $1 }
                    _ = try await Self.discern(["enqueue", Self.roots, "--database-url", conninfo], environment)
                    try await Self.unthrottle(conninfo)
                    let wrong = "not-the-secret-\(UUID().uuidString)"
                    try await TestSimulator.with(.unthrottled) { simulator in
                        let refused = try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                            arguments: ["--path-root", Self.roots], environment: s3.environment(secret: wrong))
                        let tripped = try await Announcements.until(conninfo) {
                            try await Database(conninfo: conninfo).rows("SELECT 1 FROM discern.service_breakers", as: Int.self).count > 0
                        }
                        await WorkerProcess.stopAll([refused])
                        let breakers: [(errorKind: String?, lastError: String?)] = try await Database(conninfo: conninfo).rows(
                            "SELECT error_kind, last_error FROM discern.service_breakers", as: String?.self, String?.self
                        )
                        let breaker = breakers.first
                        let said = breaker?.lastError ?? ""
                        #expect(tripped, "the refusals tripped nothing: \(refused.output.suffix(1500))")
                        #expect(
                            breaker?.errorKind == "object_store_refused" && said.contains("fleet")
                                && said.contains(s3.accessKey), "\(said)")
                        #expect(!said.contains(wrong) && !refused.output.contains(wrong), "the secret reached a message")
                        #expect(try await TestDatabase.census(conninfo).dead == 0, "a job ended dead for the credential's sake")
                        let fixed = try WorkerProcess(
                            conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                            arguments: ["--drain", "--path-root", Self.roots], environment: environment)
                        _ = await fixed.waitForExit()
                        #expect(fixed.exitStatus == 0, "\(fixed.output.suffix(1500))")
                    }
                    let census = try await TestDatabase.census(conninfo)
                    #expect(census == QueueCensus(succeeded: 12, results: 12, jobsWithOneResult: 12), "\(census)")
                }
            }
        }
    }

    @Test(
        "discern's upload to Image Discerner's bucket passes a real S3 server's signature check (a URL presigned by botocore, as the service signs them); a tampered signature is refused as the service's"
    )
    func uploadMeetsARealS3() async throws {
        try await SeaweedServer.with { s3 in
            try await s3.tool(["mkbucket", "discerner-uploads"])
            try await TestSimulator.with { simulator in
                let service = try SimulatedServices.client(DiscernerClient.self, simulator, extra: ["DISCERN_UPLOAD_ALLOWED_HOSTS": "127.0.0.1"])
                let upload = try Uploads.photo(seed: 58)
                let url = try await s3.tool(["presign-put", "discerner-uploads", "uploads/truck.jpg", "image/jpeg", "900"]).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                await simulator.scripted.enqueue(
                    "discerner.upload-url",
                    .init(
                        status: 200,
                        json:
                            #"{"upload_url": "\#(url)", "image_key": "uploads/truck.jpg", "bucket_name": "discerner-uploads", "content_type": "image/jpeg"}"#
                    ))
                await simulator.scripted.enqueue(
                    "discerner.analyze",
                    .init(
                        status: 200,
                        json:
                            #"{"success": true, "analysis_result": {"statusCode": 200, "body": {"entities": [{"type": "truck", "operator": "ACME", "confidence": 0.9}]}}}"#
                    ))
                let analysis = await service.outcome(upload, "analyze")
                #expect(analysis.error == nil, "\(String(describing: analysis.error))")
                let stored = try await s3.tool(["head", "discerner-uploads", "uploads/truck.jpg"]).split(whereSeparator: \.isWhitespace).map(
                    String.init)
                let sent = FileManager.default.temporaryDirectory.appendingPathComponent("discern-sent-\(UUID().uuidString.prefix(8))")
                try upload.data.write(to: sent)
                defer { try? FileManager.default.removeItem(at: sent) }
                let md5 = String(try await Subprocess.run("/usr/bin/md5sum", [sent.path]).prefix(32))
                #expect(stored == ["\(upload.data.count)", md5], "the store holds \(stored), discern sent \(upload.data.count) bytes, MD5 \(md5)")

                let tampered = url.replacingOccurrences(of: #"X-Amz-Signature=([0-9a-f])"#, with: "X-Amz-Signature=0", options: .regularExpression)
                let forged = tampered == url ? url.replacingOccurrences(of: "X-Amz-Signature=0", with: "X-Amz-Signature=1") : tampered
                await simulator.scripted.enqueue(
                    "discerner.upload-url",
                    .init(
                        status: 200,
                        json:
                            #"{"upload_url": "\#(forged)", "image_key": "uploads/forged.jpg", "bucket_name": "discerner-uploads", "content_type": "image/jpeg"}"#
                    ))
                let refused = try #require(await service.outcome(upload, "analyze").error)
                #expect(refused.kind == "upload_rejected" && refused.message.contains("SignatureDoesNotMatch"), "\(refused.kind): \(refused.message)")
            }
        }
    }

    @Test("an object over the size limit is refused from its answer's headers: not a byte of it lands in the worker's file")
    func overTheLimitIsNotDownloaded() async throws {
        try await SeaweedServer.with { s3 in
            try await TestFolder.with { folder in
                try await Self.upload(1, to: s3, prefix: "big/", folder: folder)
                let reader = ObjectReader(store: s3.store(), allowed: [try #require(ObjectPrefix("s3://fleet/big/"))], directory: folder.path)
                let error = await #expect(throws: ObjectStorageError.self) { _ = try await reader.fetch("s3://fleet/big/photo-0.jpg", maxBytes: 100) }
                #expect(error?.code == .tooLarge && error?.message.contains("not downloaded") == true, "\(String(describing: error))")
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("discern-limit-\(UUID().uuidString.prefix(8))")
                _ = FileManager.default.createFile(atPath: file.path, contents: nil)
                defer { try? FileManager.default.removeItem(at: file) }
                let handle = try FileHandle(forWritingTo: file)
                let refused = await #expect(throws: ObjectStorageError.self) {
                    _ = try await s3.store().download(
                        try #require(ObjectAddress("s3://fleet/big/photo-0.jpg")), to: handle.fileDescriptor, maxBytes: 100)
                }
                try handle.close()
                #expect(refused?.code == .tooLarge)
                #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) == 0, "bytes of the body were written")
                let fits = try await reader.fetch("s3://fleet/big/photo-0.jpg", maxBytes: 10_000_000)
                #expect(fits.info.size > 100)
                close(fits.descriptor)
            }
        }
    }

    @Test("the console shows a bucket photo through the same thumbnail path and the same rule: under an s3:// path root yes, outside it no")
    func consoleThumbnails() async throws {
        try await SeaweedServer.with { s3 in
            try await TestDatabase.with { conninfo in
                try await TestFolder.with { folder in
                    try await Self.upload(1, to: s3, prefix: "night/", folder: folder)
                    try await Self.upload(1, to: s3, prefix: "private/", folder: folder)
                    let ids = try await Database(conninfo: conninfo).withConnection { connection in
                        try ["s3://fleet/night/photo-0.jpg", "s3://fleet/private/photo-0.jpg"].map { path in
                            try connection.rows("SELECT discern.enqueue(\(path)) AS id", as: Int.self).first ?? -1
                        }
                    }
                    let (console, port) = try await ConsoleTests.console(conninfo, folder, ["--path-root", Self.roots], environment: s3.environment())
                    defer { console.kill() }
                    let shown = await RawHTTP.get(port: port, path: "/thumbnails/jobs/\(ids[0])")
                    #expect(
                        shown.status == 200 && shown.headers["content-type"] == "image/jpeg",
                        "\(shown.status) \(shown.headers) \(console.output.suffix(1000))")
                    let again = await RawHTTP.get(
                        port: port, path: "/thumbnails/jobs/\(ids[0])", headers: ["If-None-Match": shown.headers["etag"] ?? "-"])
                    #expect(again.status == 304, "the browser's copy is still good: \(again.status)")
                    #expect(await RawHTTP.get(port: port, path: "/thumbnails/jobs/\(ids[1])").status == 404, "a photo outside the roots")
                }
            }
        }
    }

    /// `count` distinct photos (each its own bytes, so none dedupes another) put under `prefix`
    /// of bucket `fleet` by botocore, as photo-0.jpg, photo-1.jpg, ...
    static func upload(_ count: Int, to s3: SeaweedServer, prefix: String, folder: URL) async throws {
        let local = folder.appendingPathComponent("upload-\(prefix.replacingOccurrences(of: "/", with: "-"))\(UUID().uuidString.prefix(4))")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        let files = try (0..<count).map { index in
            let file = local.appendingPathComponent("photo-\(index).jpg")
            try SampleImages.photo(width: 96, height: 64, seed: 1_000 + index).write(to: file)
            return file.path
        }
        _ = try? await s3.tool(["mkbucket", "fleet"])
        try await s3.tool(["put", "fleet", prefix] + files)
    }

    static func discern(_ arguments: [String], _ environment: [String: String]) async throws -> (status: Int32, output: String) {
        try await Subprocess.runWithStatus(try WorkerProcess.binary.path, arguments, environment: environment)
    }

    /// The contract's 50 analyses a minute would stretch a night to half an hour.
    static func unthrottle(_ conninfo: String) async throws {
        try await Database(conninfo: conninfo).withConnection { try $0.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000") }
    }
}
