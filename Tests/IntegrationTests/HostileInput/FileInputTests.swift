import MediaFiles
import ServiceClients
import Foundation
import Imaging
import SampleImages
import JobQueue
import Postgres
import Simulator
import TestFixtures
import Testing
import Worker

/// Files no worker should send, or should not send whole: paths outside the roots, files cut short,
/// "videos" that are not, metadata.
@Suite("Hostile input: files and paths", .integrationTimeLimit)
struct FileInputTests {
    @Test("a half-written JPEG or PNG is image_truncated, tried once more later, then dead; nothing half-grey is sent")
    func truncatedFiles() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let jpeg = try SampleImages.photo(width: 1200, height: 900, seed: 80)
                let png = try ImageFixtures.converted(try SampleImages.photo(width: 600, height: 400, seed: 81), to: ".png")
                let paths = [
                    try folder.write(jpeg.prefix(jpeg.count / 2), as: "half.jpg"), try folder.write(png.prefix(png.count / 2), as: "half.png"),
                    try folder.write(jpeg.prefix(jpeg.count - 2), as: "no-eoi.jpg")
                ]
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try JobQueue.enqueue($0, paths: paths) }
                let summary = try await TestSimulator.with { simulator in
                    try await TestWorker.drain(conninfo, simulator: simulator) { $0.truncatedRetrySeconds = 0.2 }
                }
                #expect(summary.dead == 3 && summary.retryScheduled == 3)
                for (_, kind, attempts, lastError) in try await database.rows(
                    "SELECT state, error_kind, attempts, last_error FROM discern.jobs", as: String.self, String?.self, Int.self, String?.self)
                {
                    #expect(kind == "image_truncated" && attempts == 2)
                    #expect(lastError?.contains("truncated") == true)
                }
                #expect(try await database.value("SELECT count(*) FROM discern.results", as: Int.self) == 0)
            }
        }
    }

    @Test("a file still arriving succeeds on its second try")
    func fileStillArriving() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let jpeg = try SampleImages.photo(width: 800, height: 600, seed: 82)
                let path = try folder.write(jpeg.prefix(jpeg.count / 3), as: "arriving.jpg")
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try JobQueue.enqueue($0, paths: [path]) }
                try await TestSimulator.with { simulator in
                    async let drained = TestWorker.drain(conninfo, simulator: simulator) { $0.truncatedRetrySeconds = 3600 }
                    // What is asserted is the order: truncated first, the whole file on the retry.
                    // The test waits for the first failure however long the worker takes to get to it
                    // beside every other suite, writes the whole file, and only then brings the retry
                    // forward: a retry on a timer could come before a starved test has written it.
                    let failedOnce = try await Announcements.until(conninfo) {
                        (try await database.rows("SELECT error_kind FROM discern.jobs", as: String?.self).first ?? nil) == "image_truncated"
                    }
                    #expect(failedOnce)
                    try jpeg.write(to: URL(fileURLWithPath: path))
                    try await database.execute("UPDATE discern.jobs SET run_at = now() WHERE state = 'available'")
                    #expect(try await drained.succeeded == 1)
                }
            }
        }
    }

    @Test(
        "outside the path roots a job dies with path_not_allowed and learns nothing: existing or not, through .., a symlink (none is followed) or a relative path"
    )
    func pathTrustBoundary() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let inside = try folder.write(try SampleImages.photo(width: 320, height: 240, seed: 83), as: "ok.jpg")
                let link = folder.appendingPathComponent("escape.jpg").path
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/hostname")
                let linkedFolder = folder.appendingPathComponent("etc-link")
                try FileManager.default.createSymbolicLink(atPath: linkedFolder.path, withDestinationPath: "/etc")
                let fifo = folder.appendingPathComponent("pipe.jpg").path
                #expect(mkfifo(fifo, 0o600) == 0)
                // A link to a file outside that does not exist answers as one to a file that does; and
                // no link is followed, even one that stays inside.
                let dangling = folder.appendingPathComponent("probe.jpg").path
                try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "/nonexistent/secret.jpg")
                let insideLink = folder.appendingPathComponent("alias.jpg").path
                try FileManager.default.createSymbolicLink(atPath: insideLink, withDestinationPath: inside)
                let outside = [
                    "/etc/hostname", "/nonexistent/secret.jpg", "\(folder.path)/../../etc/hostname", link,
                    "\(linkedFolder.path)/hostname", "\(linkedFolder.path)/nonexistent", "photos/relative.jpg", dangling, insideLink
                ]
                // The path root itself, as written and through a `..`: a folder, said so at once.
                let root = FileManager.default.temporaryDirectory.path
                let roots = [root, "\(folder.path)/../\(folder.lastPathComponent)/../"]
                let database = Database(conninfo: conninfo)
                try await database.withConnection { try JobQueue.enqueue($0, paths: outside + [fifo, inside] + roots) }
                let summary = try await TestSimulator.with { try await TestWorker.drain(conninfo, simulator: $0) }
                #expect(summary.succeeded == 1 && summary.dead == outside.count + 1 + roots.count)
                let rows = try await database.rows(
                    "SELECT image_path, error_kind, last_error FROM discern.jobs WHERE state = 'dead'", as: String.self, String?.self, String?.self)
                var messages: Set<String> = []
                for (path, kind, lastError) in rows {
                    if path == fifo || roots.contains(path) {
                        #expect(kind == "file_not_regular", "\(path): \(kind ?? "-")")
                        continue
                    }
                    #expect(kind == "path_not_allowed", "\(path): \(kind ?? "-")")
                    messages.insert((lastError ?? "").replacingOccurrences(of: path, with: "PATH"))
                }
                #expect(messages.count == 1, "the same words for every path outside, existing or not: \(messages)")
            }
        }
    }

    @Test(
        "a worker without path roots refuses to start and names the setting; enqueue skips symlinks out of its folder and refuses a file, folder or bucket outside the roots"
    )
    func rootsRequired() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let discern = try WorkerProcess.binary.path
                let refused = try await Subprocess.run(
                    discern, ["work", "--drain", "--database-url", conninfo, "--discerner-url", "http://127.0.0.1:9"],
                    environment: ["DISCERN_PATH_ROOTS": ""], allowFailure: true)
                #expect(refused.contains("DISCERN_PATH_ROOTS") && refused.contains("--path-root"), "\(refused)")

                let photos = folder.appendingPathComponent("photos")
                try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
                _ = try photos.write(try SampleImages.photo(width: 320, height: 240, seed: 84), as: "real.jpg")
                try FileManager.default.createSymbolicLink(
                    atPath: photos.appendingPathComponent("shadow.jpg").path, withDestinationPath: "/etc/hostname")
                let output = try await Subprocess.run(discern, ["enqueue", photos.path, "--database-url", conninfo, "--no-dedupe"])
                #expect(output.contains("enqueued 1 job(s)"), "\(output)")
                let outsideFile = try await Subprocess.run(
                    discern, ["enqueue", "/etc/hostname", "--database-url", conninfo, "--path-root", photos.path],
                    allowFailure: true)
                #expect(outsideFile.contains("not under the path roots"), "\(outsideFile)")

                // Roots of one kind only: a path of the other kind is refused here, not left to die
                // as path_not_allowed in every worker.
                let bucketOutside = try await Subprocess.runWithStatus(
                    discern, ["enqueue", "s3://fleet/night/", "--database-url", conninfo], environment: ["DISCERN_PATH_ROOTS": photos.path])
                #expect(
                    bucketOutside.status == 64 && bucketOutside.output.contains("name no bucket") && bucketOutside.output.contains("s3://fleet/")
                        && bucketOutside.output.split(separator: "\n").count == 1,
                    "\(bucketOutside)")
                let folderOutside = try await Subprocess.runWithStatus(
                    discern, ["enqueue", photos.path, "--database-url", conninfo], environment: ["DISCERN_PATH_ROOTS": "s3://fleet/night/"])
                #expect(folderOutside.status == 64 && folderOutside.output.contains("name no folder"), "\(folderOutside)")
            }
        }
    }

    /// A 210 MB PNG dropped in the folder is walked through a window and reserved by its pixels,
    /// never read whole: two at once must fit a small pod. What is asserted leaves room over what
    /// a worker preparing small photos holds: it stays under 200 MB (docs/decisions/0001-byte-window.md).
    @Test("two 210 MB PNGs prepared at once: memory is reserved by pixels within --max-mb-in-flight, not taken by file size")
    func largeFilesStayWithinTheBudget() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let big = folder.appendingPathComponent("big.png").path
                // Stored (uncompressed) deflate: 8000 x 8800 RGB is a 211 MB file, written in rows by zlib.
                _ = try await Subprocess.run(
                    "/usr/bin/python3",
                    [
                        "-c",
                        """
                        import struct, sys, zlib
                        w, h = 8000, 8800
                        def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
                        comp, row = zlib.compressobj(0), b'\\x00' + bytes(range(256)) * (w * 3 // 256) + bytes(w * 3 % 256)
                        with open(sys.argv[1], 'wb') as f:
                            f.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)))
                            for _ in range(0, h, 100): f.write(chunk(b'IDAT', comp.compress(row * 100)))
                            f.write(chunk(b'IDAT', comp.flush()) + chunk(b'IEND', b''))
                        """, big
                    ])
                let size = try FileManager.default.attributesOfItem(atPath: big)[.size] as? Int ?? 0
                #expect(size > 210_000_000)
                try await Database(conninfo: conninfo).withConnection { try JobQueue.enqueue($0, paths: [big, big]) }
                try await TestSimulator.with(.unthrottled) { simulator in
                    let worker = try WorkerProcess(
                        conninfo: conninfo, simulatorURL: simulator.baseURL, logFolder: folder,
                        arguments: ["--drain", "--prepare-threads", "2", "--max-mb-in-flight", "64", "--no-progress"])
                    var peakKB = 0
                    while worker.isRunning {
                        let status = (try? String(contentsOfFile: "/proc/\(worker.pid)/status", encoding: .utf8)) ?? ""
                        if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                            let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
                        {
                            peakKB = max(peakKB, kb)
                        }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    // Foundation says "not running" before the exit is reaped and the output copied:
                    // its status is known once both are (CI read nil here once).
                    #expect(await worker.waitForExit())
                    #expect(worker.exitStatus == 0, "\(worker.output.suffix(1500))")
                    #expect(peakKB > 0 && peakKB < 200_000, "the worker peaked at \(peakKB / 1024) MB preparing two 210 MB PNGs")
                }
                #expect(try await TestDatabase.census(conninfo).succeeded == 2)
            }
        }
    }

    @Test("a video that is an ftyp box and then text is refused before upload")
    func fakeVideo() async throws {
        try await TestDatabase.with { conninfo in
            try await TestFolder.with { folder in
                let fake =
                    Data([0, 0, 0, 0x18]) + Data("ftypisom".utf8) + Data([0, 0, 2, 0]) + Data("isomiso2".utf8)
                    + Data("secret meeting notes, not a video at all\n".utf8)
                let path = try folder.write(fake, as: "clip.mp4")
                try await Database(conninfo: conninfo).withConnection { try JobQueue.enqueue($0, paths: [path], service: "unissey") }
                try await TestSimulator.with { simulator in
                    let summary = try await TestWorker.drain(conninfo, simulator: simulator, clients: try SimulatedServices.all(simulator))
                    #expect(summary.dead == 1)
                    #expect(await simulator.stats.callCount("unissey") == 0, "nothing was sent")
                }
                let kind = try await Database(conninfo: conninfo).rows("SELECT error_kind FROM discern.jobs", as: String?.self).first ?? nil
                #expect(kind == "image_undecodable" || kind == "image_truncated")
            }
        }
    }

    /// A photo carrying what must not leave: GPS EXIF, a comment, bytes after its end.
    static func photoWithSecrets() throws -> Data {
        let photo = try SampleImages.photo(width: 640, height: 480, seed: 85)
        func segment(_ marker: UInt8, _ payload: Data) -> Data {
            let length = payload.count + 2
            return Data([0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]) + payload
        }
        let exif = segment(0xE1, Data("Exif\0\0MM\0*\0\0\0\u{8}GPSLatitude=51.5074N;GPSLongitude=0.1278W".utf8))
        let comment = segment(0xFE, Data("secret-comment: the owner's phone is 555-0100".utf8))
        return photo.prefix(2) + exif + comment + photo.dropFirst(2) + Data("secret-tail after the end".utf8)
    }

    @Test("only pixels leave: EXIF with GPS, comments and bytes after the end are taken out of a passed-through JPEG; the scans are untouched")
    func jpegMetadataStripped() throws {
        let original = try Self.photoWithSecrets()
        let prepared = try ImagePreparer(policy: .discerner).prepare(original)
        #expect(prepared.passedThrough)
        let sent = String(decoding: prepared.data, as: UTF8.self)
        for secret in ["GPSLatitude", "secret-comment", "555-0100", "secret-tail"] { #expect(!sent.contains(secret), "\(secret)") }
        let facts = try ImageInspector.inspect(prepared.data)
        #expect(facts.width == 640 && facts.height == 480)
        let clean = try SampleImages.photo(width: 640, height: 480, seed: 85)
        #expect(
            try PixelMeasure.mean(of: prepared.data, left: 0, top: 0, width: 640, height: 480)
                == PixelMeasure.mean(of: clean, left: 0, top: 0, width: 640, height: 480), "the same pixels")

        var keep = ImagePolicy.discerner
        keep.keepMetadata = true
        #expect(try ImagePreparer(policy: keep).prepare(original).data == original, "kept only when asked")
    }

    @Test("a PNG's text chunks are taken out, CRCs checked; a chunk with a wrong CRC is not passed through")
    func pngMetadataStripped() throws {
        let png = try ImageFixtures.converted(try SampleImages.photo(width: 400, height: 300, seed: 86), to: ".png")
        let text = Array("tEXt".utf8) + Array("Comment\0secret-png-text".utf8)
        let crc = CRC32Check.checksum(text)
        let chunk =
            Data([0, 0, 0, UInt8(text.count - 4)]) + Data(text)
            + Data([UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        let withText = png.prefix(33) + chunk + png.dropFirst(33)  // after the signature and IHDR
        let prepared = try ImagePreparer(policy: .discerner).prepare(withText)
        #expect(prepared.passedThrough && prepared.format == .png)
        #expect(!String(decoding: prepared.data, as: UTF8.self).contains("secret-png-text"))

        var corrupt = Data(withText)
        corrupt[corrupt.count - 20] ^= 0xFF  // inside IDAT or IEND: the CRC no longer matches
        let outcome = Result { try ImagePreparer(policy: .discerner).prepare(corrupt) }
        if case .success(let image) = outcome { #expect(!image.passedThrough, "re-encoded, or refused, never sent as is") }
    }
}

/// CRC-32 for building test chunks (the product's own is internal).
enum CRC32Check {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = ~UInt32(0)
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
