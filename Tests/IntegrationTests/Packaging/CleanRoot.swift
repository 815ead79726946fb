import Foundation
import Testing

/// A clean Debian 12 root file system (scripts/bookworm-root.sh: minbase, no Swift), unpacked for
/// one test and removed however it ends. Commands run in it through chroot (scripts/in-root.sh),
/// on this machine's network: its PostgreSQL and simulator are on 127.0.0.1 there too.
struct CleanRoot {
    let folder: URL

    static func with<T>(_ body: (CleanRoot) async throws -> T) async throws -> T {
        // Made (or found) where the script keeps it. Its output is not read for the path: the first
        // run's mmdebstrap writes through /dev/stderr, which reopens the output file and writes
        // over what came before it.
        _ = try await Subprocess.run("/bin/bash", [Packaging.script("bookworm-root.sh")])
        let tarball = ProcessInfo.processInfo.environment["DISCERN_BOOKWORM_ROOT"] ?? "/var/tmp/discern-bookworm-slim.tar"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-root-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await Subprocess.run("/bin/tar", ["-xf", tarball, "-C", folder.path])
        // Name resolution for apt, as the machine has it.
        _ = try? FileManager.default.removeItem(at: folder.appendingPathComponent("etc/resolv.conf"))
        try FileManager.default.copyItem(atPath: "/etc/resolv.conf", toPath: folder.appendingPathComponent("etc/resolv.conf").path)
        return try await body(CleanRoot(folder: folder))
    }

    /// A path inside the root, as the host sees it.
    func path(_ inside: String) -> URL { folder.appendingPathComponent(String(inside.drop { $0 == "/" })) }

    /// Runs a command in the root; returns its exit status and output (standard error with it).
    @discardableResult
    func run(_ command: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try await Subprocess.runWithStatus(
            "/bin/bash",
            [
                Packaging.script("in-root.sh"), folder.path, "/usr/bin/env", "-i",
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "DEBIAN_FRONTEND=noninteractive", "LANG=C.UTF-8"
            ] + assignments + command)
    }

    /// `apt-get install` of a .deb from the host, with the dependencies it names, from Debian's mirror.
    func install(_ deb: URL, reinstall: Bool = false) async throws -> (status: Int32, output: String) {
        let inside = "/tmp/\(deb.lastPathComponent)"
        _ = try? FileManager.default.removeItem(at: path(inside))
        try FileManager.default.copyItem(at: deb, to: path(inside))
        let update = try await run(["apt-get", "-o", "Acquire::Retries=3", "update", "-q"])
        guard update.status == 0 else { return update }
        return try await run(
            ["apt-get", "-o", "Acquire::Retries=3", "install", "-y", "-q", "--no-install-recommends"] + (reinstall ? ["--reinstall"] : []) + [inside])
    }
}

/// The package as the tests build it: from the suite's own binary linked with
/// --static-swift-stdlib (scripts/test.sh builds it: DISCERN_PACKAGE_BINARY).
enum Packaging {
    static func script(_ name: String) -> String { ChaosJobs.repository.appendingPathComponent("scripts/\(name)").path }

    static func requireRoot() throws {
        guard getuid() == 0 else { throw TestSetupError("the packaging tests install into a chroot: run them as root (CI does)") }
    }

    static var binary: URL {
        get throws {
            guard let path = ProcessInfo.processInfo.environment["DISCERN_PACKAGE_BINARY"], FileManager.default.isExecutableFile(atPath: path) else {
                throw TestSetupError(
                    "DISCERN_PACKAGE_BINARY is not set: run the tests with scripts/test.sh, which builds discern with --static-swift-stdlib")
            }
            return URL(fileURLWithPath: path)
        }
    }

    /// Builds the .deb into `folder` (gzip: the suite values speed over size); returns its path.
    static func deb(in folder: URL) async throws -> URL {
        var arguments = [script("package-deb.sh"), try binary.path, folder.path]
        if let tool = ProcessInfo.processInfo.environment["DISCERN_GENERATE_MANUAL"] { arguments.append(tool) }
        let path = try await Subprocess.run("/bin/bash", arguments, environment: ["DISCERN_DEB_COMPRESSION": "gzip"])
        return URL(fileURLWithPath: path.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last.map(String.init) ?? "")
    }

    /// What the installed units' `Documentation=` lines name (`man:discern-work(1)`,
    /// `file:///usr/share/doc/...`) and the package does not ship (the clean root, slim as an
    /// image's, keeps no man pages or docs: the package's own list is read).
    static func missingDocumentation(in root: CleanRoot, package deb: URL) async throws -> [String] {
        let shipped = Set(
            try await Subprocess.run("/usr/bin/dpkg-deb", ["-c", deb.path]).split(separator: "\n")
                .compactMap { $0.split(separator: " ").last.map { String($0.drop { $0 == "." }) } })
        let units = root.path("/usr/lib/systemd/system")
        let names = try FileManager.default.contentsOfDirectory(atPath: units.path).filter { $0.hasPrefix("discern-") }
        var missing: [String] = []
        for name in names {
            let text = try String(contentsOf: units.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("Documentation=") {
                for entry in line.dropFirst("Documentation=".count).split(separator: " ").map(String.init) {
                    let path: String
                    if entry.hasPrefix("man:"), let open = entry.firstIndex(of: "("), entry.hasSuffix(")") {
                        let page = entry[entry.index(entry.startIndex, offsetBy: 4)..<open]
                        let section = entry[entry.index(after: open)..<entry.index(before: entry.endIndex)]
                        path = "/usr/share/man/man\(section)/\(page).\(section).gz"
                    } else if entry.hasPrefix("file://") {
                        path = String(entry.dropFirst("file://".count))
                    } else {
                        continue
                    }
                    if !shipped.contains(path) { missing.append("\(entry) (\(name))") }
                }
            }
        }
        return missing
    }

    /// `discern version --format json`, parsed.
    static func versionReport(_ json: String) throws -> [String: Any] {
        let start = try #require(json.firstIndex(of: "{"), "not JSON: \(json.suffix(500))")
        return try #require(try JSONSerialization.jsonObject(with: Data(json[start...].utf8)) as? [String: Any])
    }
}
