import Foundation
import Postgres
import SampleImages
import Simulator
import TestFixtures
import Testing

/// discern as an operations team gets it: the .deb installed with apt on a clean Debian 12 that
/// has no Swift, and the OCI image built from that .deb, each run against this machine's
/// PostgreSQL and the simulator. One at a time: each unpacks a root file system and installs
/// about a hundred packages from Debian's mirror.
@Suite("Packaging: the .deb and the image, installed and run", .serialized, .integrationTimeLimit)
struct PackageTests {
    @Test(
        "the .deb passes lintian, installs with apt on a clean Debian 12 without Swift, and there migrates and drains 200 photos against this machine's PostgreSQL and simulator; its units verify; the nightly unit's command enqueues yesterday; an upgrade keeps the edited conffile; remove keeps it, purge takes it"
    )
    func debOnCleanDebian() async throws {
        try Packaging.requireRoot()
        try await TestFolder.with { folder in
            let deb = try await Packaging.deb(in: folder)
            let lint = try await Subprocess.runWithStatus("/usr/bin/lintian", ["--fail-on", "error", deb.path])
            #expect(lint.status == 0, "lintian: \(lint.output.suffix(3000))")
            try await CleanRoot.with { root in
                #expect(!FileManager.default.fileExists(atPath: root.path("/usr/lib/swift").path), "the clean root has Swift")
                let installed = try await root.install(deb)
                try #require(installed.status == 0, "apt-get install: \(installed.output.suffix(3000))")

                let version = try await root.run(["discern", "version", "--format", "json"])
                try #require(version.status == 0, "discern version: \(version.output)")
                let report = try Packaging.versionReport(version.output)
                let libraries = try #require(report["libraries"] as? [String: String])
                for (library, package) in [("libvips", "libvips42"), ("libpq", "libpq5"), ("libcurl", "libcurl4")] {
                    let debian = try await root.run(["dpkg-query", "-W", "-f=${Version}", package]).output
                    #expect(
                        debian.hasPrefix(libraries[library] ?? "?"),
                        "\(library) says \(libraries[library] ?? "nothing"); Debian's \(package) is \(debian)")
                }
                #expect(try await root.run(["getent", "passwd", "discern"]).status == 0, "no discern user")
                let attributes = try FileManager.default.attributesOfItem(atPath: root.path("/etc/discern/worker.env").path)
                #expect((attributes[.posixPermissions] as? Int) == 0o640)
                let group = try await root.run(["stat", "-c", "%U:%G", "/etc/discern/worker.env"]).output
                #expect(group.trimmingCharacters(in: .whitespacesAndNewlines) == "root:discern", "\(group)")

                let verify = try await Subprocess.runWithStatus(
                    "/usr/bin/systemd-analyze",
                    [
                        "verify", "--man=no", "--root=\(root.folder.path)",
                        "discern-worker.service", "discern-monitor.service", "discern-nightly.service", "discern-nightly.timer",
                        "discern-prune.service", "discern-prune.timer"
                    ])
                #expect(verify.status == 0, "systemd-analyze verify: \(verify.output)")
                // verify would look for the man pages on this machine; the package's list is read.
                for missing in try await Packaging.missingDocumentation(in: root, package: deb) {
                    Issue.record("a unit's Documentation= names \(missing), which the package does not ship")
                }

                try await Self.drain(200, photos: root.path("/srv/photos"), batch: "package-test") { command, environment in
                    try await root.run(command, environment: environment)
                }

                try await Self.nightlyEnqueues(in: root)

                // An upgrade (here the same package again) never overwrites what the administrator wrote.
                let settings = root.path("/etc/discern/worker.env")
                try (try String(contentsOf: settings, encoding: .utf8) + "DISCERN_LOG_LEVEL=debug\n").write(
                    to: settings, atomically: false, encoding: .utf8)
                let again = try await root.install(deb, reinstall: true)
                #expect(again.status == 0, "reinstall: \(again.output.suffix(2000))")
                #expect(try String(contentsOf: settings, encoding: .utf8).contains("DISCERN_LOG_LEVEL=debug"), "the edited conffile was overwritten")

                // Removal keeps the settings; a purge takes them and the link that enabled a unit.
                let wants = root.path("/etc/systemd/system/multi-user.target.wants")
                try FileManager.default.createDirectory(at: wants, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    atPath: wants.appendingPathComponent("discern-worker.service").path,
                    withDestinationPath: "/usr/lib/systemd/system/discern-worker.service")
                let removed = try await root.run(["apt-get", "remove", "-y", "-q", "discern"])
                #expect(removed.status == 0, "apt-get remove: \(removed.output.suffix(2000))")
                #expect(!FileManager.default.fileExists(atPath: root.path("/usr/bin/discern").path), "remove left the binary")
                #expect(FileManager.default.fileExists(atPath: settings.path), "remove took the settings")
                let purged = try await root.run(["apt-get", "purge", "-y", "-q", "discern"])
                #expect(purged.status == 0, "apt-get purge: \(purged.output.suffix(2000))")
                #expect(!FileManager.default.fileExists(atPath: root.path("/etc/discern").path), "purge left /etc/discern")
                #expect(
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: wants.appendingPathComponent("discern-worker.service").path)) == nil,
                    "purge left the unit's enabling link")
            }
        }
    }

    @Test(
        "the OCI image, built from that .deb on Debian bookworm-slim with its labels, runs discern version and drains 50 photos as the discern user")
    func imageDrains() async throws {
        try Packaging.requireRoot()
        try await TestFolder.with { folder in
            let deb = try await Packaging.deb(in: folder)
            let archive = folder.appendingPathComponent("discern_oci.tar")
            _ = try await Subprocess.run("/bin/bash", [Packaging.script("oci-image.sh"), deb.path, archive.path])
            #expect(FileManager.default.fileExists(atPath: archive.path), "no OCI archive")
            let version = try await Subprocess.run("/usr/bin/dpkg-deb", ["-f", deb.path, "Version"]).trimmingCharacters(in: .whitespacesAndNewlines)
            // A tag takes no +: a build after a release is tagged with _ in its place (scripts/oci-image.sh).
            let image = "discern:\(version.replacingOccurrences(of: "+", with: "_"))"
            let labels = try await Subprocess.run("/usr/bin/buildah", ["inspect", "--type", "image", "--format", "{{.OCIv1.Config.Labels}}", image])
            #expect(labels.contains("org.opencontainers.image.version:\(version)"), "\(labels)")
            #expect(labels.contains("org.opencontainers.image.revision"), "\(labels)")
            let container = try await Subprocess.run("/usr/bin/buildah", ["from", "--pull=never", image]).trimmingCharacters(
                in: .whitespacesAndNewlines)
            do {
                try await Self.run(container: container, version: version, folder: folder)
            } catch {
                _ = try? await Subprocess.run("/usr/bin/buildah", ["rm", container])
                throw error
            }
            _ = try? await Subprocess.run("/usr/bin/buildah", ["rm", container])
            _ = try? await Subprocess.run("/usr/bin/buildah", ["rmi", image])
        }
    }

    /// The nightly unit's own command, as systemd runs it (its `%%` and `$$` unescaped), in the
    /// root: yesterday's folder under DISCERN_PHOTO_ROOT (given with a trailing slash) becomes
    /// the batch nightly-<day>, its thumbs/ left out.
    static func nightlyEnqueues(in root: CleanRoot) async throws {
        let unit = try String(contentsOf: root.path("/usr/lib/systemd/system/discern-nightly.service"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=/bin/sh -c '") })
        let quoted = try #require(line.firstIndex(of: "'").map { line[line.index(after: $0)...].dropLast() })
        let script = quoted.replacingOccurrences(of: "%%", with: "%").replacingOccurrences(of: "$$", with: "$")
        try await TestDatabase.with { conninfo in
            // Today's folder too: midnight may pass before the unit's line asks for yesterday.
            let days = try await root.run(["/bin/sh", "-c", "date -d yesterday +%F; date +%F"]).output.split(separator: "\n")
            for (index, day) in days.enumerated() {
                for part in ["cam-1", "thumbs"] {
                    let folder = root.path("/srv/nightly/\(day)/\(part)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try SampleImages.photo(width: 96, height: 64, seed: 700 + index * 2 + (part == "thumbs" ? 1 : 0))
                        .write(to: folder.appendingPathComponent("photo.jpg"))
                }
            }
            let environment = ["DISCERN_PHOTO_ROOT": "/srv/nightly/", "DISCERN_PATH_ROOTS": "/srv/nightly", "DISCERN_DATABASE_URL": conninfo]
            let run = try await root.run(["/bin/sh", "-c", script], environment: environment)
            #expect(
                run.status == 0 && run.output.contains("enqueued 1 job(s)") && run.output.contains("in batch nightly-"), "\(script): \(run.output)")
            let batches = try await Database(conninfo: conninfo).rows("SELECT name FROM discern.batches", as: String.self)
            #expect(batches.count == 1 && days.contains { batches.first == "nightly-\($0)" }, "\(batches)")
        }
    }

    private static func run(container: String, version: String, folder: URL) async throws {
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        func inImage(_ command: [String], _ environment: [String: String]) async throws -> (status: Int32, output: String) {
            try await Buildah.run(container, command, environment: environment, volumes: [(photos.path, "/srv/photos")])
        }
        let report = try await inImage(["discern", "version", "--format", "json"], [:])
        let reported = report.status == 0 ? try Packaging.versionReport(report.output)["version"] as? String : nil
        #expect(reported == version, "\(report.output)")
        let user = try await inImage(["id", "-un"], [:])
        #expect(user.output.trimmingCharacters(in: .whitespacesAndNewlines) == "discern", "runs as \(user.output)")
        try await Self.drain(50, photos: photos, batch: "image-test", inImage)
    }

    /// Migrates a fresh database from `run`'s discern, puts `count` photos in `photos` (the
    /// host's side of /srv/photos), enqueues them and drains them against the simulator: every
    /// one succeeds once.
    static func drain(
        _ count: Int, photos: URL, batch: String,
        _ run: ([String], [String: String]) async throws -> (status: Int32, output: String)
    ) async throws {
        try await TestDatabase.with(migrated: false) { conninfo in
            let migrate = try await run(["discern", "migrate", "--database-url", conninfo], [:])
            try #require(migrate.status == 0, "discern migrate: \(migrate.output)")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            for index in 0..<count {
                try SampleImages.photo(width: 96, height: 64, seed: index + 1).write(to: photos.appendingPathComponent("photo-\(index).jpg"))
            }
            let roots = ["DISCERN_PATH_ROOTS": "/srv/photos"]
            let enqueue = try await run(["discern", "enqueue", "/srv/photos", "--database-url", conninfo, "--batch", batch], roots)
            try #require(enqueue.status == 0, "discern enqueue: \(enqueue.output)")
            // The contract's 50 analyses a minute would stretch the drain to minutes.
            try await Database(conninfo: conninfo).withConnection {
                try $0.execute("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
            }
            try await TestSimulator.with(.unthrottled) { simulator in
                let work = try await run(
                    [
                        "discern", "work", "--drain", "--database-url", conninfo, "--discerner-url", simulator.baseURL,
                        "--log-level", "warning"
                    ], roots)
                #expect(work.status == 0, "discern work --drain: \(work.output.suffix(3000))")
            }
            let census = try await TestDatabase.census(conninfo)
            #expect(census == QueueCensus(succeeded: count, results: count, jobsWithOneResult: count), "\(census)")
        }
    }
}
